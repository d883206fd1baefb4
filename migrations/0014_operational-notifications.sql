CREATE TABLE `nameserver_sync_watch` (
	`node_id` text PRIMARY KEY NOT NULL,
	`behind_since` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `notification_settings` (
	`id` text PRIMARY KEY NOT NULL,
	`emails` text NOT NULL,
	`webhook_url` text,
	`webhook_secret_sealed` text,
	`cooldown_minutes` integer NOT NULL,
	`max_per_hour` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `operational_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`notification_id` text NOT NULL,
	`event_key` text NOT NULL,
	`kind` text NOT NULL,
	`event` text NOT NULL,
	`channel` text NOT NULL,
	`target` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`answer` text,
	`created_at` integer NOT NULL,
	`last_attempt_at` integer
);
--> statement-breakpoint
CREATE INDEX `operational_deliveries_created_idx` ON `operational_deliveries` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `operational_deliveries_notification_idx` ON `operational_deliveries` (`notification_id`);--> statement-breakpoint
CREATE TABLE `operational_events` (
	`key` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`detail` text NOT NULL,
	`link` text,
	`state` text NOT NULL,
	`opened_at` integer NOT NULL,
	`closed_at` integer,
	`announced_at` integer,
	`last_sent_at` integer,
	`version` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `operational_events_held_idx` ON `operational_events` (`state`,`announced_at`);