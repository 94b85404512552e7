CREATE TABLE "server_schedules" (
	"id" text PRIMARY KEY NOT NULL,
	"server_id" text NOT NULL,
	"name" text NOT NULL,
	"cron" text NOT NULL,
	"time_zone" text NOT NULL,
	"action" jsonb NOT NULL,
	"only_when_online" boolean DEFAULT false NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"next_run_at" timestamp with time zone,
	"last_run_at" timestamp with time zone,
	"last_result" text,
	"last_message" text DEFAULT '' NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "backups" ADD COLUMN "schedule_id" text;--> statement-breakpoint
ALTER TABLE "server_schedules" ADD CONSTRAINT "server_schedules_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "server_schedules" ADD CONSTRAINT "server_schedules_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "server_schedules_server_id_idx" ON "server_schedules" USING btree ("server_id");--> statement-breakpoint
CREATE INDEX "server_schedules_next_run_idx" ON "server_schedules" USING btree ("next_run_at");