CREATE TABLE `node_edge_changes` (
	`node_id` text NOT NULL,
	`version` integer NOT NULL,
	`kind` text NOT NULL,
	`hostname` text,
	`proto` text,
	`listen_port` integer,
	FOREIGN KEY (`node_id`) REFERENCES `nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `node_edge_changes_version_idx` ON `node_edge_changes` (`node_id`,`version`);--> statement-breakpoint
CREATE INDEX `routes_node_hostname_idx` ON `routes` (`node_id`,`hostname`) WHERE "routes"."status" <> 'removed';