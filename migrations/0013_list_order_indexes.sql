-- Every list is read in its own order with the record id last (docs/decisions/lists-and-bulk.md): with
-- the id in each list index, SQLite reads a page straight from the index in order, where a
-- tie-breaker outside the index sent every row through a sorter and doubled the rows read.

DROP INDEX `appointments_agency_start_idx`;--> statement-breakpoint
DROP INDEX `appointments_agency_contact_idx`;--> statement-breakpoint
DROP INDEX `appointments_agency_member_idx`;--> statement-breakpoint
CREATE INDEX `appointments_agency_start_idx` ON `appointments` (`agency_id`,`start_at`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `appointments_agency_contact_idx` ON `appointments` (`agency_id`,`contact_id`,`start_at`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `appointments_agency_member_idx` ON `appointments` (`agency_id`,`member_id`,`start_at`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `booking_widgets_agency_idx`;--> statement-breakpoint
CREATE INDEX `booking_widgets_agency_idx` ON `booking_widgets` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `contacts_agency_created_idx`;--> statement-breakpoint
DROP INDEX `contacts_agency_source_idx`;--> statement-breakpoint
CREATE INDEX `contacts_agency_created_idx` ON `contacts` (`agency_id`,`deleted_at`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `contacts_agency_source_idx` ON `contacts` (`agency_id`,`source`,`deleted_at`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `fields_agency_idx`;--> statement-breakpoint
CREATE INDEX `fields_agency_idx` ON `fields` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `invites_agency_idx`;--> statement-breakpoint
CREATE INDEX `invites_agency_idx` ON `invites` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `lead_orders_agency_idx`;--> statement-breakpoint
CREATE INDEX `lead_orders_agency_idx` ON `lead_orders` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `members_agency_idx`;--> statement-breakpoint
CREATE INDEX `members_agency_idx` ON `members` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `messages_agency_created_idx`;--> statement-breakpoint
DROP INDEX `messages_agency_contact_idx`;--> statement-breakpoint
DROP INDEX `messages_agency_unread_idx`;--> statement-breakpoint
CREATE INDEX `messages_agency_created_idx` ON `messages` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_agency_contact_idx` ON `messages` (`agency_id`,`contact_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `messages_agency_unread_idx` ON `messages` (`agency_id`,`read_at`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `paths_agency_idx`;--> statement-breakpoint
CREATE INDEX `paths_agency_idx` ON `paths` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `voice_calls_agency_created_idx`;--> statement-breakpoint
DROP INDEX `voice_calls_agency_status_idx`;--> statement-breakpoint
DROP INDEX `voice_calls_agency_contact_idx`;--> statement-breakpoint
CREATE INDEX `voice_calls_agency_created_idx` ON `voice_calls` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `voice_calls_agency_status_idx` ON `voice_calls` (`agency_id`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `voice_calls_agency_contact_idx` ON `voice_calls` (`agency_id`,`contact_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `events_agency_created_idx`;--> statement-breakpoint
DROP INDEX `events_agency_type_created_idx`;--> statement-breakpoint
CREATE INDEX `events_agency_created_idx` ON `events` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `events_agency_type_created_idx` ON `events` (`agency_id`,`type`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `webhook_attempts_endpoint_idx`;--> statement-breakpoint
CREATE INDEX `webhook_attempts_endpoint_idx` ON `webhook_attempts` (`endpoint_id`,`attempted_at`,`id`);--> statement-breakpoint
DROP INDEX `webhook_endpoints_agency_idx`;--> statement-breakpoint
CREATE INDEX `webhook_endpoints_agency_idx` ON `webhook_endpoints` (`agency_id`,`created_at`,`id`);