ALTER TABLE `custom_hostname_settings` ADD `remove_stale_after_days` integer;--> statement-breakpoint
ALTER TABLE `custom_hostnames` ADD `metadata` text;--> statement-breakpoint
ALTER TABLE `custom_hostnames` ADD `stale_notice_at` integer;--> statement-breakpoint
CREATE INDEX `custom_hostnames_stale_idx` ON `custom_hostnames` (`site_id`,`stale_notice_at`,`updated_at`) WHERE "custom_hostnames"."state" in ('instructions', 'pending') and "custom_hostnames"."dns_resolved_at" is null;--> statement-breakpoint
ALTER TABLE `operational_events` ADD `custom_hostnames` text;