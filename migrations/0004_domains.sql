CREATE TABLE `domains` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`route_id` text,
	`hostname` text NOT NULL,
	`driver` text NOT NULL,
	`writer_id` text,
	`dns_state` text NOT NULL,
	`issuer` text NOT NULL,
	`cert_state` text NOT NULL,
	`cert_expires_at` integer,
	`cert_serial` text,
	`proxied` integer NOT NULL,
	`applied_proxied` integer,
	`failure_remedy` text,
	`verification` text NOT NULL,
	`records` text NOT NULL,
	`written` text NOT NULL,
	`step` text NOT NULL,
	`generation` integer NOT NULL,
	`attempts` integer NOT NULL,
	`step_started_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `domains_hostname_unique` ON `domains` (`hostname`);--> statement-breakpoint
CREATE INDEX `domains_site_idx` ON `domains` (`site_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `domains_step_idx` ON `domains` (`step`,`updated_at`);