CREATE TABLE `custom_hostname_records` (
	`id` text PRIMARY KEY NOT NULL,
	`owner_id` text NOT NULL,
	`via` text NOT NULL,
	`writer_id` text NOT NULL,
	`zone_name` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	`ttl` integer NOT NULL,
	`record_id` text,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `custom_hostnames`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `custom_hostname_records_owner_idx` ON `custom_hostname_records` (`owner_id`);--> statement-breakpoint
ALTER TABLE `custom_hostnames` ADD `failure_detail` text;--> statement-breakpoint
INSERT INTO `custom_hostname_records` (`id`, `owner_id`, `via`, `writer_id`, `zone_name`, `type`, `name`, `value`, `ttl`, `record_id`, `state`, `created_at`)
SELECT lower(hex(randomblob(16))), ch.`id`, json_extract(w.value, '$.via'),
  CASE json_extract(w.value, '$.via') WHEN 'hosted' THEN json_extract(w.value, '$.zoneId') ELSE json_extract(w.value, '$.accountId') END,
  coalesce(json_extract(w.value, '$.zoneName'), ch.`zone_name`), json_extract(w.value, '$.type'), json_extract(w.value, '$.name'),
  json_extract(w.value, '$.value'), json_extract(w.value, '$.ttl'), json_extract(w.value, '$.recordId'), 'written', ch.`updated_at`
FROM `custom_hostnames` ch, json_each(ch.`written`) w;--> statement-breakpoint
ALTER TABLE `custom_hostnames` DROP COLUMN `written`;