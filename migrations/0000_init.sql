CREATE TABLE `agencies` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`timezone` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`scopes` text NOT NULL,
	`access_hash` text NOT NULL,
	`rotate_hash` text,
	`expires_at` text,
	`expires` integer NOT NULL,
	`rate_limit_multiplier` real DEFAULT 1 NOT NULL,
	`revoked_at` text,
	`renewed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_access_hash_unique` ON `api_keys` (`access_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_rotate_hash_unique` ON `api_keys` (`rotate_hash`) WHERE rotate_hash IS NOT NULL;--> statement-breakpoint
CREATE INDEX `api_keys_agency_idx` ON `api_keys` (`agency_id`);--> statement-breakpoint
CREATE TABLE `burned_secrets` (
	`hash` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`kind` text NOT NULL,
	`burned_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `security_events` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text,
	`key_id` text,
	`type` text NOT NULL,
	`ip` text,
	`detail` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `security_events_key_idx` ON `security_events` (`key_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `contact_tags` (
	`contact_id` text NOT NULL,
	`agency_id` text NOT NULL,
	`tag` text NOT NULL,
	PRIMARY KEY(`contact_id`, `tag`),
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `contact_tags_agency_tag_idx` ON `contact_tags` (`agency_id`,`tag`);--> statement-breakpoint
CREATE TABLE `contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`email` text,
	`phone` text,
	`tags` text NOT NULL,
	`source` text,
	`path_id` text,
	`custom_fields` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `contacts_agency_created_idx` ON `contacts` (`agency_id`,`deleted_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `contacts_agency_source_idx` ON `contacts` (`agency_id`,`source`,`deleted_at`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_agency_email_live_unique` ON `contacts` (`agency_id`,`email`) WHERE deleted_at IS NULL AND email IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_agency_phone_live_unique` ON `contacts` (`agency_id`,`phone`) WHERE deleted_at IS NULL AND phone IS NOT NULL;--> statement-breakpoint
CREATE TABLE `fields` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`key` text NOT NULL,
	`label` text NOT NULL,
	`type` text NOT NULL,
	`options` text NOT NULL,
	`archived_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `fields_agency_idx` ON `fields` (`agency_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `fields_agency_key_live_unique` ON `fields` (`agency_id`,`key`) WHERE archived_at IS NULL;--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`agency_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`state` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`agency_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_expiry_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `members` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`removed_at` text,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `members_agency_idx` ON `members` (`agency_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `members_agency_email_live_unique` ON `members` (`agency_id`,`email`) WHERE removed_at IS NULL;--> statement-breakpoint
CREATE TABLE `path_events` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`path_id` text NOT NULL,
	`type` text NOT NULL,
	`step` text,
	`contact_id` text,
	`occurred_at` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `path_events_report_idx` ON `path_events` (`agency_id`,`path_id`,`occurred_at`);--> statement-breakpoint
CREATE TABLE `paths` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`status` text NOT NULL,
	`steps` text NOT NULL,
	`version` integer NOT NULL,
	`published_version` integer,
	`published_at` text,
	`deleted_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `paths_agency_idx` ON `paths` (`agency_id`,`created_at`);