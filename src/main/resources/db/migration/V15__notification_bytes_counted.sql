-- Issue 25, second round: every byte a project makes Pigeon hold in the delivery engine counts toward its quotas.
--
-- A 'single' group (a subscription's notification, a confirmation request) keeps its body in its own row and has no
-- items; from now on its item_bytes records what the row holds (body, sealed body, headers, retry policy), set by
-- the statement that inserts it, so that the usage check's sum of item_bytes covers notifications as it covers /v3
-- items. The usage check also counts dead groups (they hold their bodies for pigeon.dispatch.dead-retention).
-- The rows stored before this migration are counted here once.
UPDATE dispatch_groups
SET item_bytes = COALESCE(octet_length(body), 0) + COALESCE(octet_length(sealed_body), 0)
                 + COALESCE(octet_length(headers::text), 0) + COALESCE(octet_length(retry_policy::text), 0)
WHERE envelope = 'single' AND item_bytes = 0;
