CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`type` text NOT NULL,
	`object_type` text NOT NULL,
	`snapshot` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `events_agency_created_idx` ON `events` (`agency_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_agency_type_created_idx` ON `events` (`agency_id`,`type`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_created_idx` ON `events` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`attempt` integer NOT NULL,
	`status_code` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	`delivered` integer NOT NULL,
	`attempted_at` text NOT NULL,
	`next_attempt_at` text
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_endpoint_idx` ON `webhook_attempts` (`endpoint_id`,`attempted_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_attempts_delivery_attempt_unique` ON `webhook_attempts` (`delivery_id`,`attempt`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`event_id` text NOT NULL,
	`endpoint_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` text,
	`enqueued_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event_idx` ON `webhook_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`url` text NOT NULL,
	`events` text NOT NULL,
	`description` text,
	`status` text NOT NULL,
	`disabled_reason` text,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_secret_expires_at` text,
	`failing_since` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_agency_idx` ON `webhook_endpoints` (`agency_id`,`created_at`);--> statement-breakpoint
-- The outbox's fan-out: an event creates its deliveries in the statement that writes it, so
-- they commit or roll back with the change itself. One delivery per enabled endpoint of the
-- agency subscribed to the type (or to "*"); its id is "<event id>:<endpoint id>". Test
-- sends (`ping`) are delivered to the tested endpoint only, by the route that makes them.
CREATE TRIGGER `events_fan_out` AFTER INSERT ON `events` WHEN NEW.`type` <> 'ping' BEGIN
  INSERT INTO `webhook_deliveries` (`id`, `agency_id`, `event_id`, `endpoint_id`, `status`, `attempts`, `next_attempt_at`, `enqueued_at`, `created_at`, `updated_at`)
  SELECT NEW.`id` || ':' || e.`id`, NEW.`agency_id`, NEW.`id`, e.`id`, 'pending', 0, NEW.`created_at`, NULL, NEW.`created_at`, NEW.`created_at`
  FROM `webhook_endpoints` AS e
  WHERE e.`agency_id` = NEW.`agency_id` AND e.`status` = 'enabled'
    AND EXISTS (SELECT 1 FROM json_each(e.`events`) WHERE json_each.`value` IN ('*', NEW.`type`));
END;
