CREATE TABLE `certificate_attempts` (
	`owner_id` text NOT NULL,
	`node_id` text NOT NULL,
	`hostname` text NOT NULL,
	`at` integer NOT NULL,
	`error_kind` text,
	`problem_type` text,
	`detail` text,
	`retry_after` integer,
	`next_attempt_at` integer,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`owner_id`, `node_id`)
);
