PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_certificate_observations` (
	`owner_id` text NOT NULL,
	`node_id` text NOT NULL,
	`hostname` text NOT NULL,
	`not_after` integer NOT NULL,
	`serial` text NOT NULL,
	`issuer` text NOT NULL,
	`observed_at` integer NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`owner_id`, `node_id`)
);
--> statement-breakpoint
-- An observation moves to the claim that held its hostname when it was made; one older than the claim belonged
-- to an earlier registration and is dropped. Its time is clamped to when the panel stored it.
INSERT INTO `__new_certificate_observations`("owner_id", "node_id", "hostname", "not_after", "serial", "issuer", "observed_at", "received_at") SELECT c."owner_id", o."node_id", o."hostname", o."not_after", o."serial", o."issuer", min(o."observed_at", o."updated_at"), o."updated_at" FROM `certificate_observations` o JOIN `hostname_claims` c ON c."hostname" = o."hostname" WHERE o."observed_at" >= c."created_at";--> statement-breakpoint
DROP TABLE `certificate_observations`;--> statement-breakpoint
ALTER TABLE `__new_certificate_observations` RENAME TO `certificate_observations`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
ALTER TABLE `custom_hostname_settings` ADD `ask_url` text;--> statement-breakpoint
ALTER TABLE `custom_hostnames` ADD `dns_resolved_at` integer;--> statement-breakpoint
UPDATE `custom_hostnames` SET `dns_resolved_at` = `dns_checked_at` WHERE `dns_resolves` = 1;
