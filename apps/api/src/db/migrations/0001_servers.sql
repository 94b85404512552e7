CREATE TABLE "servers" (
	"id" text PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"name" text NOT NULL,
	"software" text NOT NULL,
	"version" text NOT NULL,
	"node_id" text NOT NULL,
	"port" integer NOT NULL,
	"memory_mb" integer NOT NULL,
	"max_players" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "servers" ADD CONSTRAINT "servers_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "servers_name_key" ON "servers" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "servers_node_port_key" ON "servers" USING btree ("node_id","port");--> statement-breakpoint
CREATE INDEX "servers_owner_id_idx" ON "servers" USING btree ("owner_id");