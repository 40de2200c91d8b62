CREATE TABLE `sms_numbers` (
	`number` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sms_numbers_agency_unique` ON `sms_numbers` (`agency_id`);--> statement-breakpoint
ALTER TABLE `contacts` ADD `sms_opt_out` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `delivery_error` text;--> statement-breakpoint
CREATE UNIQUE INDEX `messages_provider_message_unique` ON `messages` (`provider_message_id`) WHERE provider_message_id IS NOT NULL;