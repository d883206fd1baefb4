ALTER TABLE `custom_hostnames` ADD `dns_diagnosis` text;--> statement-breakpoint
ALTER TABLE `domains` ADD `diagnosis` text;