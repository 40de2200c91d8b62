CREATE TABLE `app_grants` (
	`id` text PRIMARY KEY NOT NULL,
	`agency_id` text NOT NULL,
	`client_id` text NOT NULL,
	`client_name` text NOT NULL,
	`client_domain` text,
	`redirect_host` text NOT NULL,
	`resource` text NOT NULL,
	`scopes` text NOT NULL,
	`granted_by` text NOT NULL,
	`rate_limit_multiplier` real DEFAULT 1 NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`agency_id`) REFERENCES `agencies`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `app_grants_agency_created_idx` ON `app_grants` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
-- The move fence (migration 0011): a write of an agency that is moving or has moved aborts.
CREATE TRIGGER `app_grants_freeze_insert` AFTER INSERT ON `app_grants`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `app_grants_freeze_update` AFTER UPDATE ON `app_grants`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `app_grants_freeze_delete` AFTER DELETE ON `app_grants`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
