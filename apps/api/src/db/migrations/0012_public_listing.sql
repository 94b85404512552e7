ALTER TABLE "servers" ADD COLUMN "list_motd" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "list_icon" text;