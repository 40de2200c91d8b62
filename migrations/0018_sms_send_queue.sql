ALTER TABLE `messages` ADD `to_number` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `send_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `send_first_attempt_at` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `send_next_attempt_at` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `send_in_flight` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `send_lookup_needed` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `messages_send_due_idx` ON `messages` (`send_next_attempt_at`) WHERE delivery_status = 'queued' AND send_next_attempt_at IS NOT NULL;