CREATE TABLE `appointments` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`member_id` text,
	`calendar_key` text NOT NULL,
	`start_at` text NOT NULL,
	`end_at` text NOT NULL,
	`status` text NOT NULL,
	`title` text,
	`notes` text,
	`booking_widget_id` text,
	`path_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`canceled_at` text,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `appointments_live_slot_unique` ON `appointments` (`agency_id`,`calendar_key`,`start_at`) WHERE status <> 'canceled';--> statement-breakpoint
CREATE INDEX `appointments_agency_start_idx` ON `appointments` (`agency_id`,`start_at`);--> statement-breakpoint
CREATE INDEX `appointments_agency_created_idx` ON `appointments` (`agency_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `appointments_agency_contact_idx` ON `appointments` (`agency_id`,`contact_id`,`start_at`);--> statement-breakpoint
CREATE INDEX `appointments_agency_member_idx` ON `appointments` (`agency_id`,`member_id`,`start_at`);--> statement-breakpoint
CREATE TABLE `booking_widgets` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`name` text NOT NULL,
	`member_id` text,
	`duration_minutes` integer NOT NULL,
	`active` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `booking_widgets_agency_idx` ON `booking_widgets` (`agency_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `calendar_hours` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`member_id` text,
	`calendar_key` text NOT NULL,
	`timezone` text NOT NULL,
	`slot_minutes` integer NOT NULL,
	`days` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `calendar_hours_calendar_unique` ON `calendar_hours` (`agency_id`,`calendar_key`);--> statement-breakpoint
CREATE TABLE `invites` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`status` text NOT NULL,
	`expires_at` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `invites_agency_idx` ON `invites` (`agency_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `invites_agency_email_pending_unique` ON `invites` (`agency_id`,`email`) WHERE status = 'pending';--> statement-breakpoint
CREATE TABLE `lead_orders` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`daily_max` integer NOT NULL,
	`states` text NOT NULL,
	`delivered_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`canceled_at` text,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `lead_orders_agency_idx` ON `lead_orders` (`agency_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`channel` text NOT NULL,
	`direction` text NOT NULL,
	`body` text NOT NULL,
	`delivery_status` text,
	`provider_message_id` text,
	`read_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `messages_agency_created_idx` ON `messages` (`agency_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_agency_contact_idx` ON `messages` (`agency_id`,`contact_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `messages_agency_unread_idx` ON `messages` (`agency_id`,`read_at`,`created_at`);--> statement-breakpoint
CREATE TABLE `path_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`path_id` text NOT NULL,
	`version` integer NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`steps` text NOT NULL,
	`published_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`path_id`) REFERENCES `paths`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `path_versions_path_version_unique` ON `path_versions` (`path_id`,`version`);--> statement-breakpoint
CREATE TABLE `agency_secrets` (
	`agency_id` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`agency_id`, `name`),
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `agency_settings` (
	`agency_id` text PRIMARY KEY NOT NULL,
	`settings` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `voice_agents` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `voice_agents_agency_idx` ON `voice_agents` (`agency_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `voice_calls` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`contact_id` text,
	`contact_name` text,
	`phone` text NOT NULL,
	`direction` text NOT NULL,
	`status` text NOT NULL,
	`ended_reason` text,
	`duration_seconds` integer,
	`agent_id` text,
	`phone_number_id` text,
	`scheduled_at` text,
	`due_at` text NOT NULL,
	`enqueued_at` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`provider_call_id` text,
	`started_at` text,
	`ended_at` text,
	`summary` text,
	`cost_cents` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `voice_calls_agency_created_idx` ON `voice_calls` (`agency_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `voice_calls_status_due_idx` ON `voice_calls` (`status`,`due_at`);--> statement-breakpoint
CREATE TABLE `voice_phone_numbers` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`number` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`agent_id`) REFERENCES `voice_agents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `voice_phone_numbers_agent_idx` ON `voice_phone_numbers` (`agent_id`);--> statement-breakpoint
CREATE TABLE `wallet_ledger` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`type` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`call_id` text,
	`note` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `wallet_ledger_agency_idx` ON `wallet_ledger` (`agency_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `wallet_ledger_call_debit_unique` ON `wallet_ledger` (`call_id`) WHERE type = 'call_debit';--> statement-breakpoint
CREATE TABLE `wallets` (
	`agency_id` text PRIMARY KEY NOT NULL,
	`balance_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`rate_per_minute_cents` integer NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
