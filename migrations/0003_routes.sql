CREATE TABLE `node_edge_versions` (
	`node_id` text PRIMARY KEY NOT NULL,
	`desired` integer NOT NULL,
	`applied` integer NOT NULL,
	`state` text NOT NULL,
	`last_error` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `routes` (
	`id` text PRIMARY KEY NOT NULL,
	`node_id` text NOT NULL,
	`instance_id` text NOT NULL,
	`site_id` text,
	`kind` text NOT NULL,
	`hostname` text,
	`target_port` integer NOT NULL,
	`listen_port` integer,
	`proto` text,
	`device_name` text,
	`edge_config` text NOT NULL,
	`status` text NOT NULL,
	`config_version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`instance_id`) REFERENCES `instances`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `routes_node_listen_idx` ON `routes` (`node_id`,`listen_port`,`proto`) WHERE "routes"."status" <> 'removed';--> statement-breakpoint
CREATE UNIQUE INDEX `routes_hostname_idx` ON `routes` (`hostname`) WHERE "routes"."status" <> 'removed';--> statement-breakpoint
CREATE INDEX `routes_node_idx` ON `routes` (`node_id`,`config_version`);--> statement-breakpoint
CREATE INDEX `routes_site_idx` ON `routes` (`site_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `routes_instance_idx` ON `routes` (`instance_id`,`created_at`);