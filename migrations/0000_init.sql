CREATE TABLE `account_defaults` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scope` text NOT NULL,
	`scope_id` text NOT NULL,
	`kind` text NOT NULL,
	`account_id` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `account_defaults_scope_kind_idx` ON `account_defaults` (`scope`,`scope_id`,`kind`);--> statement-breakpoint
CREATE INDEX `account_defaults_account_idx` ON `account_defaults` (`account_id`);--> statement-breakpoint
CREATE TABLE `account_zones` (
	`account_id` text NOT NULL,
	`zone_name` text NOT NULL,
	`zone_id` text NOT NULL,
	PRIMARY KEY(`account_id`, `zone_name`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `account_zones_name_idx` ON `account_zones` (`zone_name`);--> statement-breakpoint
CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`provider` text NOT NULL,
	`token_sealed` text NOT NULL,
	`zone_id` text,
	`api_base_url` text,
	`last_test_state` text NOT NULL,
	`zones_refreshed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_kind_name_idx` ON `accounts` (`kind`,`name`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`action` text NOT NULL,
	`principal_kind` text NOT NULL,
	`principal_id` text,
	`target_id` text,
	`outcome` text NOT NULL,
	`request_id` text NOT NULL,
	`detail` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_action_idx` ON `audit_log` (`action`,`id`);--> statement-breakpoint
CREATE INDEX `audit_target_idx` ON `audit_log` (`target_id`,`id`);--> statement-breakpoint
CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`permissions` text NOT NULL,
	`created_by` text NOT NULL,
	`site_id` text,
	`expires_at` integer,
	`revoked_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_token_hash_unique` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_site_idx` ON `api_tokens` (`site_id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `changelog_mirror` (
	`id` text PRIMARY KEY NOT NULL,
	`upstream` text,
	`etag` text,
	`last_pulled_at` integer,
	`last_status` text,
	`last_error` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `changelog_releases` (
	`id` text PRIMARY KEY NOT NULL,
	`version` text NOT NULL,
	`title` text NOT NULL,
	`severity` text NOT NULL,
	`summary` text,
	`items` text NOT NULL,
	`phase` text,
	`source` text NOT NULL,
	`date` text,
	`published_at` integer,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `changelog_releases_version_unique` ON `changelog_releases` (`version`);--> statement-breakpoint
CREATE INDEX `changelog_releases_date_idx` ON `changelog_releases` (`date`);--> statement-breakpoint
CREATE TABLE `changelog_translations` (
	`release_id` text NOT NULL,
	`lang` text NOT NULL,
	`title` text NOT NULL,
	`summary` text,
	`items` text NOT NULL,
	`machine` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`release_id`, `lang`),
	FOREIGN KEY (`release_id`) REFERENCES `changelog_releases`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `changelog_webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`target_id` text NOT NULL,
	`release_id` text NOT NULL,
	`version` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`last_error` text,
	`last_status_code` integer,
	`next_attempt_at` integer,
	`delivered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`target_id`) REFERENCES `changelog_webhook_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `changelog_deliveries_target_idx` ON `changelog_webhook_deliveries` (`target_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `changelog_deliveries_release_idx` ON `changelog_webhook_deliveries` (`release_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `changelog_webhook_targets` (
	`id` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`secret_sealed` text NOT NULL,
	`enabled` integer NOT NULL,
	`disabled_reason` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `dns_zones` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`dnssec` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dns_zones_name_unique` ON `dns_zones` (`name`);--> statement-breakpoint
CREATE TABLE `nameservers` (
	`node_id` text PRIMARY KEY NOT NULL,
	`hostname` text NOT NULL,
	`powerdns_api_url` text,
	`powerdns_api_key_sealed` text,
	`powerdns_server_id` text,
	`health_checked_at` integer,
	`health_ok` integer,
	`health_detail` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `nameservers_hostname_unique` ON `nameservers` (`hostname`);--> statement-breakpoint
CREATE TABLE `zone_box_sync` (
	`zone_id` text NOT NULL,
	`node_id` text NOT NULL,
	`state` text NOT NULL,
	`records_current` integer DEFAULT false NOT NULL,
	`generation` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`attempts` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`zone_id`, `node_id`),
	FOREIGN KEY (`zone_id`) REFERENCES `dns_zones`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `zone_box_sync_node_idx` ON `zone_box_sync` (`node_id`);--> statement-breakpoint
CREATE TABLE `instances` (
	`id` text PRIMARY KEY NOT NULL,
	`node_id` text NOT NULL,
	`name` text NOT NULL,
	`address` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `instances_node_name_idx` ON `instances` (`node_id`,`name`);--> statement-breakpoint
CREATE TABLE `nodes` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`roles` text NOT NULL,
	`agent_url` text NOT NULL,
	`agent_secret_sealed` text NOT NULL,
	`public_ipv4` text,
	`public_ipv6` text,
	`dns_target` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `nodes_name_unique` ON `nodes` (`name`);--> statement-breakpoint
CREATE TABLE `sites` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`name` text NOT NULL,
	`port` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sites_instance_idx` ON `sites` (`instance_id`);