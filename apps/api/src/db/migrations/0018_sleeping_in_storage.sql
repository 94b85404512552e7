ALTER TABLE "servers" ADD COLUMN "stored_in" text;--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "stored_sha256" text;