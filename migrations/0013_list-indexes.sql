DROP INDEX `api_tokens_site_idx`;--> statement-breakpoint
CREATE INDEX `api_tokens_site_created_idx` ON `api_tokens` (`site_id`,`created_at`);--> statement-breakpoint
DROP INDEX `sites_instance_idx`;--> statement-breakpoint
CREATE INDEX `sites_instance_created_idx` ON `sites` (`instance_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `sites_created_idx` ON `sites` (`created_at`);--> statement-breakpoint
CREATE INDEX `accounts_created_idx` ON `accounts` (`created_at`);--> statement-breakpoint
CREATE INDEX `changelog_deliveries_created_idx` ON `changelog_webhook_deliveries` (`created_at`);--> statement-breakpoint
CREATE INDEX `instances_node_created_idx` ON `instances` (`node_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `instances_created_idx` ON `instances` (`created_at`);