CREATE TABLE "giveaway_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"winner" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "giveaways" (
	"slug" text PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"deadline" timestamp with time zone NOT NULL,
	"winners_count" integer NOT NULL,
	"seed" text,
	"drawn_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "referral_code" text;--> statement-breakpoint
ALTER TABLE "giveaway_entries" ADD CONSTRAINT "giveaway_entries_slug_giveaways_slug_fk" FOREIGN KEY ("slug") REFERENCES "public"."giveaways"("slug") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "giveaway_entries" ADD CONSTRAINT "giveaway_entries_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "giveaway_entries_slug_user_key" ON "giveaway_entries" USING btree ("slug","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_referral_code_key" ON "users" USING btree ("referral_code");