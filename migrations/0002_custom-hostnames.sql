CREATE TABLE `certificate_observations` (
	`hostname` text PRIMARY KEY NOT NULL,
	`node_id` text NOT NULL,
	`not_after` integer NOT NULL,
	`serial` text NOT NULL,
	`issuer` text NOT NULL,
	`observed_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `custom_hostname_settings` (
	`site_id` text PRIMARY KEY NOT NULL,
	`allowed_zones` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `custom_hostnames` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`hostname` text NOT NULL,
	`tier` text NOT NULL,
	`state` text NOT NULL,
	`reason` text,
	`zone_name` text NOT NULL,
	`writer_kind` text,
	`writer_id` text,
	`records` text NOT NULL,
	`written` text NOT NULL,
	`failure_remedy` text,
	`generation` integer NOT NULL,
	`attempts` integer NOT NULL,
	`dns_resolves` integer NOT NULL,
	`dns_checked_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `custom_hostnames_hostname_unique` ON `custom_hostnames` (`hostname`);--> statement-breakpoint
CREATE INDEX `custom_hostnames_site_idx` ON `custom_hostnames` (`site_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `hostname_claims` (
	`hostname` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`site_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `hostname_claims_site_idx` ON `hostname_claims` (`site_id`);