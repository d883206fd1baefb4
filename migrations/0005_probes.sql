CREATE TABLE `probe_deliveries` (
	`probe_id` text NOT NULL,
	`target` text NOT NULL,
	`status` text NOT NULL,
	`event` text NOT NULL,
	`attempts` integer NOT NULL,
	`last_error` text,
	`last_attempt_at` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`probe_id`, `target`),
	FOREIGN KEY (`probe_id`) REFERENCES `probes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `probe_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`probe_id` text NOT NULL,
	`kind` text NOT NULL,
	`at` integer NOT NULL,
	`state` text NOT NULL,
	`previous_state` text,
	`latency_ms` integer,
	`detail` text,
	FOREIGN KEY (`probe_id`) REFERENCES `probes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `probe_results_probe_idx` ON `probe_results` (`probe_id`,`kind`,`at`);--> statement-breakpoint
CREATE TABLE `probe_rollups` (
	`probe_id` text NOT NULL,
	`granularity` text NOT NULL,
	`bucket_start` integer NOT NULL,
	`up` integer NOT NULL,
	`down` integer NOT NULL,
	`degraded` integer NOT NULL,
	`latency_sum_ms` integer NOT NULL,
	`latency_count` integer NOT NULL,
	`latency_max_ms` integer,
	PRIMARY KEY(`probe_id`, `granularity`, `bucket_start`),
	FOREIGN KEY (`probe_id`) REFERENCES `probes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `probes` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`target_kind` text NOT NULL,
	`target_id` text,
	`target` text NOT NULL,
	`config` text NOT NULL,
	`notify_config` text NOT NULL,
	`webhook_secret` text,
	`heartbeat_token_hash` text,
	`state` text NOT NULL,
	`enabled` integer NOT NULL,
	`consecutive_failures` integer NOT NULL,
	`last_result` text,
	`last_checked_at` integer,
	`last_changed_at` integer,
	`next_check_at` integer,
	`archived_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `probes_due_idx` ON `probes` (`next_check_at`) WHERE "probes"."next_check_at" is not null;--> statement-breakpoint
CREATE INDEX `probes_target_idx` ON `probes` (`target_kind`,`target_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `probes_created_idx` ON `probes` (`created_at`);