ALTER TABLE `channel_deliveries` ADD `delivered_to` text;--> statement-breakpoint
ALTER TABLE `operational_deliveries` ADD `delivered_to` text;