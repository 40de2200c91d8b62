CREATE TABLE `agency_moves` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`from_shard` text NOT NULL,
	`to_shard` text NOT NULL,
	`state` text NOT NULL,
	`rows_copied` integer DEFAULT 0 NOT NULL,
	`rows_total` integer,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `agency_moves_agency_idx` ON `agency_moves` (`agency_id`,`created_at`);