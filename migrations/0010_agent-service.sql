CREATE TABLE `agent_nonces` (
	`node_id` text NOT NULL,
	`nonce` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`node_id`, `nonce`)
);
--> statement-breakpoint
CREATE INDEX `agent_nonces_expires_idx` ON `agent_nonces` (`expires_at`);--> statement-breakpoint
ALTER TABLE `nodes` ADD `agent_hostname` text;