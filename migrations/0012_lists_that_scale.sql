DROP INDEX `voice_agents_agency_idx`;--> statement-breakpoint
CREATE INDEX `voice_agents_agency_idx` ON `voice_agents` (`agency_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `contacts` ADD `external_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_agency_external_id_live_unique` ON `contacts` (`agency_id`,`external_id`) WHERE deleted_at IS NULL AND external_id IS NOT NULL;