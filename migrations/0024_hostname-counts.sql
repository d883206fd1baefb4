CREATE TABLE `node_hostname_counts` (
	`node_id` text PRIMARY KEY NOT NULL,
	`claims` integer NOT NULL,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `site_hostname_counts` (
	`site_id` text PRIMARY KEY NOT NULL,
	`custom_hostnames` integer NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `site_hostname_counts` (`site_id`, `custom_hostnames`)
	SELECT `site_id`, count(*) FROM `custom_hostnames` GROUP BY `site_id`;
--> statement-breakpoint
INSERT INTO `node_hostname_counts` (`node_id`, `claims`)
	SELECT `instances`.`node_id`, count(*) FROM `hostname_claims`
	JOIN `sites` ON `sites`.`id` = `hostname_claims`.`site_id`
	JOIN `instances` ON `instances`.`id` = `sites`.`instance_id`
	GROUP BY `instances`.`node_id`;
--> statement-breakpoint
CREATE TRIGGER `custom_hostnames_counted_in` AFTER INSERT ON `custom_hostnames` BEGIN
	INSERT INTO `site_hostname_counts` (`site_id`, `custom_hostnames`) VALUES (new.`site_id`, 1)
		ON CONFLICT (`site_id`) DO UPDATE SET `custom_hostnames` = `custom_hostnames` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `custom_hostnames_counted_out` AFTER DELETE ON `custom_hostnames` BEGIN
	UPDATE `site_hostname_counts` SET `custom_hostnames` = `custom_hostnames` - 1 WHERE `site_id` = old.`site_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `custom_hostnames_stay_on_their_site` BEFORE UPDATE OF `site_id` ON `custom_hostnames`
	WHEN old.`site_id` <> new.`site_id` BEGIN
	SELECT RAISE(ABORT, 'a custom hostname does not change site: site_hostname_counts counts it where it is');
END;
--> statement-breakpoint
CREATE TRIGGER `hostname_claims_counted_in` AFTER INSERT ON `hostname_claims` BEGIN
	INSERT INTO `node_hostname_counts` (`node_id`, `claims`)
		SELECT `instances`.`node_id`, 1 FROM `sites` JOIN `instances` ON `instances`.`id` = `sites`.`instance_id`
		WHERE `sites`.`id` = new.`site_id`
		ON CONFLICT (`node_id`) DO UPDATE SET `claims` = `claims` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `hostname_claims_counted_out` AFTER DELETE ON `hostname_claims` BEGIN
	UPDATE `node_hostname_counts` SET `claims` = `claims` - 1 WHERE `node_id` = (
		SELECT `instances`.`node_id` FROM `sites` JOIN `instances` ON `instances`.`id` = `sites`.`instance_id`
		WHERE `sites`.`id` = old.`site_id`
	);
END;
--> statement-breakpoint
CREATE TRIGGER `hostname_claims_stay_on_their_site` BEFORE UPDATE OF `site_id` ON `hostname_claims`
	WHEN old.`site_id` <> new.`site_id` BEGIN
	SELECT RAISE(ABORT, 'a hostname claim does not change site: node_hostname_counts counts it where it is');
END;
--> statement-breakpoint
CREATE TRIGGER `sites_stay_on_their_instance` BEFORE UPDATE OF `instance_id` ON `sites`
	WHEN old.`instance_id` <> new.`instance_id` BEGIN
	SELECT RAISE(ABORT, 'a site does not change instance: node_hostname_counts counts its hostnames where it is');
END;
--> statement-breakpoint
CREATE TRIGGER `instances_stay_on_their_node` BEFORE UPDATE OF `node_id` ON `instances`
	WHEN old.`node_id` <> new.`node_id` BEGIN
	SELECT RAISE(ABORT, 'an instance does not change node: node_hostname_counts counts its hostnames where it is');
END;
