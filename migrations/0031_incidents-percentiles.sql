CREATE TABLE `status_page_incident_updates` (
	`id` text PRIMARY KEY NOT NULL,
	`incident_id` text NOT NULL,
	`state` text NOT NULL,
	`message` text NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`incident_id`) REFERENCES `status_page_incidents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `status_page_incident_updates_incident_idx` ON `status_page_incident_updates` (`incident_id`,`at`);--> statement-breakpoint
CREATE TABLE `status_page_incidents` (
	`id` text PRIMARY KEY NOT NULL,
	`status_page_id` text NOT NULL,
	`title` text NOT NULL,
	`impact` text NOT NULL,
	`state` text NOT NULL,
	`probe_ids` text NOT NULL,
	`automatic` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`resolved_at` integer,
	FOREIGN KEY (`status_page_id`) REFERENCES `status_pages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `status_page_incidents_page_idx` ON `status_page_incidents` (`status_page_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `probe_rollups` ADD `latency_p50_ms` integer;--> statement-breakpoint
ALTER TABLE `probe_rollups` ADD `latency_p95_ms` integer;--> statement-breakpoint
ALTER TABLE `probe_rollups` ADD `latency_p99_ms` integer;--> statement-breakpoint
ALTER TABLE `status_pages` ADD `auto_incidents` integer DEFAULT false NOT NULL;