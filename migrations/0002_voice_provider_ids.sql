ALTER TABLE `voice_agents` ADD `provider_agent_id` text;--> statement-breakpoint
ALTER TABLE `voice_phone_numbers` ADD `provider_number_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `voice_phone_numbers_agency_number_unique` ON `voice_phone_numbers` (`agency_id`,`number`);