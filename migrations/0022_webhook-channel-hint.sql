-- A signed-webhook channel's hint showed the URL path, which often is the credential (Zapier, Teams, n8n):
-- keep its origin only, as the Slack, Discord and ntfy hints do.
UPDATE `channels`
SET `hint` = substr(`hint`, 1, instr(substr(`hint`, 9), '/') + 7) || '/***'
WHERE `kind` = 'webhook' AND instr(substr(`hint`, 9), '/') > 0;
