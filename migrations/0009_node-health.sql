CREATE TABLE `node_health` (
	`node_id` text PRIMARY KEY NOT NULL,
	`check_state` text NOT NULL,
	`checked_at` integer NOT NULL,
	`last_seen_at` integer,
	`agent_version` text,
	`applied_config_version` integer,
	`error` text,
	`consecutive_failures` integer NOT NULL,
	`alerted` text,
	`alerted_at` integer,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `node_edge_versions` ADD `failure` text;--> statement-breakpoint
-- A version that failed before this column: the reconcile job wrote "not applied after N attempts: …" when the
-- agent never answered usably, and the agent's refusal otherwise.
UPDATE `node_edge_versions` SET `failure` = CASE WHEN `last_error` LIKE 'not applied after %' THEN 'unanswered' ELSE 'refused' END WHERE `state` = 'failed';
