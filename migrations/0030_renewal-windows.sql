ALTER TABLE `certificate_observations` ADD `renewal_window_start` integer;--> statement-breakpoint
ALTER TABLE `certificate_observations` ADD `renewal_window_end` integer;--> statement-breakpoint
ALTER TABLE `certificate_observations` ADD `renewal_explanation_url` text;