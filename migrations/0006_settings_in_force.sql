-- calendar_hours.slot_minutes becomes nullable (null: the agency's booking.default_slot_minutes).
-- SQLite cannot drop NOT NULL in place, so the table is rebuilt. No table references
-- calendar_hours, and D1 runs a migration in one transaction, where PRAGMA foreign_keys has
-- no effect (https://developers.cloudflare.com/d1/sql-api/foreign-keys/): defer the checks instead.
PRAGMA defer_foreign_keys = on;--> statement-breakpoint
CREATE TABLE `__new_calendar_hours` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`member_id` text,
	`calendar_key` text NOT NULL,
	`timezone` text NOT NULL,
	`slot_minutes` integer,
	`days` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_calendar_hours`("id", "agency_id", "member_id", "calendar_key", "timezone", "slot_minutes", "days", "created_at", "updated_at") SELECT "id", "agency_id", "member_id", "calendar_key", "timezone", "slot_minutes", "days", "created_at", "updated_at" FROM `calendar_hours`;--> statement-breakpoint
DROP TABLE `calendar_hours`;--> statement-breakpoint
ALTER TABLE `__new_calendar_hours` RENAME TO `calendar_hours`;--> statement-breakpoint
CREATE UNIQUE INDEX `calendar_hours_calendar_unique` ON `calendar_hours` (`agency_id`,`calendar_key`);--> statement-breakpoint
ALTER TABLE `voice_calls` ADD `dispatch_at` text;--> statement-breakpoint
ALTER TABLE `voice_calls` ADD `max_duration_seconds` integer;--> statement-breakpoint
ALTER TABLE `voice_calls` ADD `voicemail_behavior` text;