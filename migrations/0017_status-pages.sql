CREATE TABLE `status_pages` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`groups` text NOT NULL,
	`public` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `status_pages_slug_idx` ON `status_pages` (`slug`);--> statement-breakpoint
CREATE INDEX `status_pages_created_idx` ON `status_pages` (`created_at`);