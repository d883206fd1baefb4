-- Hand-written: audit entries recorded before URLs were masked on the way in keep a changelog webhook URL's query
-- and fragment no longer (they become ***). Userinfo was never accepted in a stored URL.
UPDATE `audit_log` SET `detail` = json_set(`detail`, '$.url',
  CASE
    WHEN instr(json_extract(`detail`, '$.url'), '#') > 0
      AND (instr(json_extract(`detail`, '$.url'), '?') = 0
        OR instr(json_extract(`detail`, '$.url'), '#') < instr(json_extract(`detail`, '$.url'), '?'))
    THEN substr(json_extract(`detail`, '$.url'), 1, instr(json_extract(`detail`, '$.url'), '#') - 1) || '#***'
    ELSE substr(json_extract(`detail`, '$.url'), 1, instr(json_extract(`detail`, '$.url'), '?') - 1) || '?***'
      || CASE WHEN instr(json_extract(`detail`, '$.url'), '#') > 0 THEN '#***' ELSE '' END
  END)
WHERE `action` LIKE 'changelog.webhook-%'
  AND json_type(`detail`, '$.url') = 'text'
  AND (instr(json_extract(`detail`, '$.url'), '?') > 0 OR instr(json_extract(`detail`, '$.url'), '#') > 0);
