CREATE TABLE `custom_hostname_state_counts` (
	`state` text PRIMARY KEY NOT NULL,
	`custom_hostnames` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `custom_hostnames_state_idx` ON `custom_hostnames` (`state`,`updated_at`);--> statement-breakpoint
INSERT INTO `custom_hostname_state_counts` (`state`, `custom_hostnames`)
	SELECT `state`, count(*) FROM `custom_hostnames` GROUP BY `state`;
--> statement-breakpoint
CREATE TRIGGER `custom_hostnames_state_counted_in` AFTER INSERT ON `custom_hostnames` BEGIN
	INSERT INTO `custom_hostname_state_counts` (`state`, `custom_hostnames`) VALUES (new.`state`, 1)
		ON CONFLICT (`state`) DO UPDATE SET `custom_hostnames` = `custom_hostnames` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `custom_hostnames_state_counted_out` AFTER DELETE ON `custom_hostnames` BEGIN
	UPDATE `custom_hostname_state_counts` SET `custom_hostnames` = `custom_hostnames` - 1 WHERE `state` = old.`state`;
END;
--> statement-breakpoint
CREATE TRIGGER `custom_hostnames_state_counted_across` AFTER UPDATE OF `state` ON `custom_hostnames`
	WHEN old.`state` <> new.`state` BEGIN
	UPDATE `custom_hostname_state_counts` SET `custom_hostnames` = `custom_hostnames` - 1 WHERE `state` = old.`state`;
	INSERT INTO `custom_hostname_state_counts` (`state`, `custom_hostnames`) VALUES (new.`state`, 1)
		ON CONFLICT (`state`) DO UPDATE SET `custom_hostnames` = `custom_hostnames` + 1;
END;
