-- Agencies across D1 databases (issue 19; docs/decisions/shards-and-moves.md).
--
-- The directory (shards, agency_directory, directory_records) is used only in the database
-- bound as DB, which stays the home of every agency it already has: the backfill below records
-- them there, so a one-database deployment upgrades without moving a row. Every other database
-- gets the same tables, empty (one migrations/ folder serves all of them).
--
-- agency_freezes and its triggers are the write fence of a move: each table of
-- src/db/agency-tables.ts refuses an insert, update or delete of a frozen agency with
-- 'agency_moving' (the API answers 503). AFTER triggers: a BEFORE UPDATE trigger makes SQLite
-- read the row a second time (one more row read on every update); an AFTER trigger's RAISE(ABORT)
-- undoes the statement all the same, and the batch it belongs to with it. A lookup in the
-- empty table costs no row read. The triggers were generated from agency-tables.ts;
-- test/agency-move.test.ts fails when a table lacks them. webhook_deliveries and contact_tags
-- have none on INSERT: with one, SQLite stages the rows of an INSERT ... SELECT first (every
-- event's fan-out, every contact's tags), one row read more per write even when it inserts
-- nothing; their inserts are fenced by the event or contact each belongs to (agency-tables.ts).
CREATE TABLE `agency_directory` (
	`agency_id` text PRIMARY KEY NOT NULL,
	`shard` text NOT NULL,
	`moving_to` text,
	`move_heartbeat_at` text,
	`leftover_shard` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agency_directory_shard_idx` ON `agency_directory` (`shard`);--> statement-breakpoint
CREATE TABLE `agency_freezes` (
	`agency_id` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `directory_records` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`agency_id` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `directory_records_agency_idx` ON `directory_records` (`agency_id`,`kind`);--> statement-breakpoint
CREATE TABLE `shards` (
	`name` text PRIMARY KEY NOT NULL,
	`region` text,
	`open` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `shards` (`name`, `region`, `open`, `created_at`, `updated_at`)
  VALUES ('DB', NULL, 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
--> statement-breakpoint
INSERT INTO `agency_directory` (`agency_id`, `shard`, `created_at`) SELECT `id`, 'DB', `created_at` FROM `agencies`;
--> statement-breakpoint
INSERT INTO `directory_records` (`id`, `kind`, `agency_id`) SELECT `id`, 'api_key', `agency_id` FROM `api_keys`;
--> statement-breakpoint
INSERT INTO `directory_records` (`id`, `kind`, `agency_id`) SELECT `id`, 'member', `agency_id` FROM `members`;
--> statement-breakpoint
CREATE TRIGGER `agencies_freeze_insert` AFTER INSERT ON `agencies`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `agencies_freeze_update` AFTER UPDATE ON `agencies`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `agencies_freeze_delete` AFTER DELETE ON `agencies`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `agency_settings_freeze_insert` AFTER INSERT ON `agency_settings`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `agency_settings_freeze_update` AFTER UPDATE ON `agency_settings`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `agency_settings_freeze_delete` AFTER DELETE ON `agency_settings`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `agency_secrets_freeze_insert` AFTER INSERT ON `agency_secrets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `agency_secrets_freeze_update` AFTER UPDATE ON `agency_secrets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `agency_secrets_freeze_delete` AFTER DELETE ON `agency_secrets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `members_freeze_insert` AFTER INSERT ON `members`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `members_freeze_update` AFTER UPDATE ON `members`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `members_freeze_delete` AFTER DELETE ON `members`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_freeze_insert` AFTER INSERT ON `api_keys`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_freeze_update` AFTER UPDATE ON `api_keys`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_freeze_delete` AFTER DELETE ON `api_keys`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `burned_secrets_freeze_insert` AFTER INSERT ON `burned_secrets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = (SELECT agency_id FROM api_keys WHERE id = NEW.key_id) AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `burned_secrets_freeze_update` AFTER UPDATE ON `burned_secrets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = (SELECT agency_id FROM api_keys WHERE id = NEW.key_id) AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `burned_secrets_freeze_delete` AFTER DELETE ON `burned_secrets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = (SELECT agency_id FROM api_keys WHERE id = OLD.key_id) AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `security_events_freeze_insert` AFTER INSERT ON `security_events`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `security_events_freeze_update` AFTER UPDATE ON `security_events`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `security_events_freeze_delete` AFTER DELETE ON `security_events`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_freeze_insert` AFTER INSERT ON `audit_log`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_freeze_update` AFTER UPDATE ON `audit_log`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_freeze_delete` AFTER DELETE ON `audit_log`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `dashboard_links_freeze_insert` AFTER INSERT ON `dashboard_links`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `dashboard_links_freeze_update` AFTER UPDATE ON `dashboard_links`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `dashboard_links_freeze_delete` AFTER DELETE ON `dashboard_links`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `dashboard_sessions_freeze_insert` AFTER INSERT ON `dashboard_sessions`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `dashboard_sessions_freeze_update` AFTER UPDATE ON `dashboard_sessions`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `dashboard_sessions_freeze_delete` AFTER DELETE ON `dashboard_sessions`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `fields_freeze_insert` AFTER INSERT ON `fields`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `fields_freeze_update` AFTER UPDATE ON `fields`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `fields_freeze_delete` AFTER DELETE ON `fields`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `contacts_freeze_insert` AFTER INSERT ON `contacts`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `contacts_freeze_update` AFTER UPDATE ON `contacts`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `contacts_freeze_delete` AFTER DELETE ON `contacts`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `contact_tags_freeze_update` AFTER UPDATE ON `contact_tags`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `contact_tags_freeze_delete` AFTER DELETE ON `contact_tags`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `calendar_hours_freeze_insert` AFTER INSERT ON `calendar_hours`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `calendar_hours_freeze_update` AFTER UPDATE ON `calendar_hours`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `calendar_hours_freeze_delete` AFTER DELETE ON `calendar_hours`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `booking_widgets_freeze_insert` AFTER INSERT ON `booking_widgets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `booking_widgets_freeze_update` AFTER UPDATE ON `booking_widgets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `booking_widgets_freeze_delete` AFTER DELETE ON `booking_widgets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `appointments_freeze_insert` AFTER INSERT ON `appointments`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `appointments_freeze_update` AFTER UPDATE ON `appointments`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `appointments_freeze_delete` AFTER DELETE ON `appointments`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `messages_freeze_insert` AFTER INSERT ON `messages`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `messages_freeze_update` AFTER UPDATE ON `messages`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `messages_freeze_delete` AFTER DELETE ON `messages`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `paths_freeze_insert` AFTER INSERT ON `paths`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `paths_freeze_update` AFTER UPDATE ON `paths`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `paths_freeze_delete` AFTER DELETE ON `paths`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `path_versions_freeze_insert` AFTER INSERT ON `path_versions`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `path_versions_freeze_update` AFTER UPDATE ON `path_versions`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `path_versions_freeze_delete` AFTER DELETE ON `path_versions`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `path_events_freeze_insert` AFTER INSERT ON `path_events`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `path_events_freeze_update` AFTER UPDATE ON `path_events`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `path_events_freeze_delete` AFTER DELETE ON `path_events`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `lead_orders_freeze_insert` AFTER INSERT ON `lead_orders`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `lead_orders_freeze_update` AFTER UPDATE ON `lead_orders`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `lead_orders_freeze_delete` AFTER DELETE ON `lead_orders`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `invites_freeze_insert` AFTER INSERT ON `invites`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `invites_freeze_update` AFTER UPDATE ON `invites`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `invites_freeze_delete` AFTER DELETE ON `invites`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `voice_agents_freeze_insert` AFTER INSERT ON `voice_agents`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `voice_agents_freeze_update` AFTER UPDATE ON `voice_agents`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `voice_agents_freeze_delete` AFTER DELETE ON `voice_agents`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `voice_phone_numbers_freeze_insert` AFTER INSERT ON `voice_phone_numbers`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `voice_phone_numbers_freeze_update` AFTER UPDATE ON `voice_phone_numbers`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `voice_phone_numbers_freeze_delete` AFTER DELETE ON `voice_phone_numbers`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `voice_calls_freeze_insert` AFTER INSERT ON `voice_calls`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `voice_calls_freeze_update` AFTER UPDATE ON `voice_calls`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `voice_calls_freeze_delete` AFTER DELETE ON `voice_calls`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `wallets_freeze_insert` AFTER INSERT ON `wallets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `wallets_freeze_update` AFTER UPDATE ON `wallets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `wallets_freeze_delete` AFTER DELETE ON `wallets`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `wallet_ledger_freeze_insert` AFTER INSERT ON `wallet_ledger`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `wallet_ledger_freeze_update` AFTER UPDATE ON `wallet_ledger`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `wallet_ledger_freeze_delete` AFTER DELETE ON `wallet_ledger`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `idempotency_keys_freeze_insert` AFTER INSERT ON `idempotency_keys`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `idempotency_keys_freeze_update` AFTER UPDATE ON `idempotency_keys`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `idempotency_keys_freeze_delete` AFTER DELETE ON `idempotency_keys`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `events_freeze_insert` AFTER INSERT ON `events`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `events_freeze_update` AFTER UPDATE ON `events`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `events_freeze_delete` AFTER DELETE ON `events`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_endpoints_freeze_insert` AFTER INSERT ON `webhook_endpoints`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_endpoints_freeze_update` AFTER UPDATE ON `webhook_endpoints`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_endpoints_freeze_delete` AFTER DELETE ON `webhook_endpoints`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_freeze_update` AFTER UPDATE ON `webhook_deliveries`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_freeze_delete` AFTER DELETE ON `webhook_deliveries`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_attempts_freeze_insert` AFTER INSERT ON `webhook_attempts`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_attempts_freeze_update` AFTER UPDATE ON `webhook_attempts`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = NEW.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_attempts_freeze_delete` AFTER DELETE ON `webhook_attempts`
  WHEN EXISTS (SELECT 1 FROM `agency_freezes` WHERE `agency_id` = OLD.agency_id AND `state` <> 'purging')
BEGIN SELECT RAISE(ABORT, 'agency_moving'); END;
