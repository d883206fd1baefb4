CREATE TABLE `failed_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`body` text NOT NULL,
	`target` text NOT NULL,
	`target_kind` text NOT NULL,
	`target_id` text NOT NULL,
	`state` text NOT NULL,
	`attempts` integer NOT NULL,
	`retries` integer NOT NULL,
	`last_error` text,
	`first_attempt_at` integer NOT NULL,
	`last_attempt_at` integer NOT NULL,
	`dead_lettered_at` integer
);
--> statement-breakpoint
CREATE INDEX `failed_jobs_recent_idx` ON `failed_jobs` (`last_attempt_at`,`id`);--> statement-breakpoint
CREATE INDEX `failed_jobs_state_idx` ON `failed_jobs` (`state`,`last_attempt_at`,`id`);--> statement-breakpoint
CREATE INDEX `failed_jobs_kind_idx` ON `failed_jobs` (`kind`,`last_attempt_at`,`id`);--> statement-breakpoint
CREATE INDEX `failed_jobs_target_idx` ON `failed_jobs` (`kind`,`target_id`);