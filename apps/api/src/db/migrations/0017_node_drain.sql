CREATE TABLE "node_settings" (
	"node_id" text PRIMARY KEY NOT NULL,
	"draining" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
