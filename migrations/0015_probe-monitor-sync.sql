ALTER TABLE `probes` ADD `monitor_version` integer;--> statement-breakpoint
CREATE INDEX `probes_monitor_behind_idx` ON `probes` (`updated_at`) WHERE "probes"."monitor_version" is not "probes"."updated_at";--> statement-breakpoint
-- Added by hand: every existing monitor was configured at its row's last change, so none is behind.
UPDATE `probes` SET `monitor_version` = `updated_at`;
