CREATE TABLE `record_counts` (
	`agency_id` text NOT NULL,
	`kind` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`agency_id`, `kind`)
);
