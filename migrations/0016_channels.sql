CREATE TABLE `channel_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`channel_id` text NOT NULL,
	`probe_id` text,
	`event` text NOT NULL,
	`title` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`answer` text,
	`created_at` integer NOT NULL,
	`last_attempt_at` integer,
	FOREIGN KEY (`channel_id`) REFERENCES `channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `channel_deliveries_channel_created_idx` ON `channel_deliveries` (`channel_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `channels` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`settings` text NOT NULL,
	`secret_sealed` text,
	`hint` text NOT NULL,
	`api_base_url` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `channels_created_idx` ON `channels` (`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `notification_settings` ADD `channels` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- Added by hand: every stored notifyConfig gains the (empty) list of channel ids.
UPDATE `probes` SET `notify_config` = json_set(`notify_config`, '$.channels', json('[]')) WHERE json_extract(`notify_config`, '$.channels') IS NULL;
