ALTER TABLE "payments" ADD COLUMN "charge_ref" text;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_charge_ref_key" ON "payments" USING btree ("provider","charge_ref");