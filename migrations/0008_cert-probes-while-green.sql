-- A domain's cert-expiry probe now exists only while the domain is green: the live probes of failed domains are
-- archived (history and events stay). Their monitors see it at the next configure; the minute scan skips them at
-- once, since nextCheckAt goes null.
UPDATE `probes` SET `archived_at` = strftime('%s', 'now') * 1000, `next_check_at` = NULL, `updated_at` = max(`updated_at` + 1, strftime('%s', 'now') * 1000)
WHERE `type` = 'cert' AND `target_kind` = 'domain' AND `archived_at` IS NULL
  AND `target_id` IN (SELECT `id` FROM `domains` WHERE `step` = 'failed');
