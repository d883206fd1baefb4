CREATE TABLE `maintenance_window_probes` (
	`window_id` text NOT NULL,
	`probe_id` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`window_id`, `probe_id`),
	FOREIGN KEY (`window_id`) REFERENCES `maintenance_windows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`probe_id`) REFERENCES `probes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `maintenance_window_probes_probe_idx` ON `maintenance_window_probes` (`probe_id`);--> statement-breakpoint
CREATE TABLE `maintenance_window_status_pages` (
	`window_id` text NOT NULL,
	`status_page_id` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`window_id`, `status_page_id`),
	FOREIGN KEY (`window_id`) REFERENCES `maintenance_windows`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`status_page_id`) REFERENCES `status_pages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `maintenance_window_status_pages_page_idx` ON `maintenance_window_status_pages` (`status_page_id`);--> statement-breakpoint
CREATE TABLE `maintenance_windows` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`schedule` text NOT NULL,
	`ends_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `maintenance_windows_created_idx` ON `maintenance_windows` (`created_at`);