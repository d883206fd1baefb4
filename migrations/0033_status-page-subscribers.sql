CREATE TABLE `status_page_announcements` (
	`id` text PRIMARY KEY NOT NULL,
	`status_page_id` text NOT NULL,
	`incident_id` text NOT NULL,
	`update_id` text NOT NULL,
	`channel` text NOT NULL,
	`subscriber_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`last_error` text,
	`claimed_until` integer,
	`created_at` integer NOT NULL,
	`delivered_at` integer,
	FOREIGN KEY (`status_page_id`) REFERENCES `status_pages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`incident_id`) REFERENCES `status_page_incidents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`update_id`) REFERENCES `status_page_incident_updates`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `status_page_announcements_once_idx` ON `status_page_announcements` (`update_id`,`channel`,`subscriber_id`);--> statement-breakpoint
CREATE INDEX `status_page_announcements_page_idx` ON `status_page_announcements` (`status_page_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `status_page_email_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`status_page_id` text NOT NULL,
	`email` text NOT NULL,
	`state` text NOT NULL,
	`confirm_token_hash` text,
	`confirm_token_sealed` text,
	`confirm_expires_at` integer,
	`unsubscribe_token_hash` text NOT NULL,
	`unsubscribe_token_sealed` text NOT NULL,
	`origin` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`confirmed_at` integer,
	FOREIGN KEY (`status_page_id`) REFERENCES `status_pages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `status_page_email_subscriptions_address_idx` ON `status_page_email_subscriptions` (`status_page_id`,`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `status_page_email_subscriptions_confirm_idx` ON `status_page_email_subscriptions` (`confirm_token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `status_page_email_subscriptions_unsubscribe_idx` ON `status_page_email_subscriptions` (`unsubscribe_token_hash`);--> statement-breakpoint
CREATE INDEX `status_page_email_subscriptions_state_idx` ON `status_page_email_subscriptions` (`status_page_id`,`state`);--> statement-breakpoint
CREATE TABLE `status_page_webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`status_page_id` text NOT NULL,
	`url` text NOT NULL,
	`secret_sealed` text NOT NULL,
	`origin` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`status_page_id`) REFERENCES `status_pages`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `status_page_webhooks_page_idx` ON `status_page_webhooks` (`status_page_id`,`created_at`);