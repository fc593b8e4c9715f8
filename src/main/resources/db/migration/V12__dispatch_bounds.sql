-- Bounds on what a project may keep pending in the delayed-dispatch queue (issue 25, item 4).
--
-- Each group counts its items and their bytes, kept by the statements that add and remove items: a push
-- adds one under the group's row lock (its upsert), so the per-group limit holds exactly under concurrent
-- pushes; the periodic usage check sums the counts per project instead of reading every item.
ALTER TABLE dispatch_groups ADD COLUMN items integer NOT NULL DEFAULT 0;
ALTER TABLE dispatch_groups ADD COLUMN item_bytes bigint NOT NULL DEFAULT 0;

UPDATE dispatch_groups g SET items = c.items, item_bytes = c.item_bytes
FROM (SELECT group_id, count(*) AS items, sum(octet_length(body)) AS item_bytes
      FROM dispatch_items GROUP BY group_id) c
WHERE g.id = c.group_id;

-- The usage check records a project over its pending items or bytes as it does one over its pending groups.
ALTER TABLE quota_breaches DROP CONSTRAINT quota_breaches_kind_check;
ALTER TABLE quota_breaches ADD CONSTRAINT quota_breaches_kind_check
    CHECK (kind IN ('messages', 'groups', 'items', 'bytes'));

-- The sweeper buries pending groups older than pigeon.dispatch.max-pending-age: found by age, not by a scan.
CREATE INDEX dispatch_groups_pending_since ON dispatch_groups (created_at) WHERE state = 'pending';

-- As in V4, and the delivered items leave their group's counts.
CREATE OR REPLACE FUNCTION dispatch_complete(group_id bigint, lease uuid, delivered bigint[], more boolean)
RETURNS void LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    removed bigint;
    removed_bytes bigint;
BEGIN
    PERFORM 1 FROM dispatch_groups g WHERE g.id = group_id AND g.lease_token = lease FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    WITH gone AS (
        DELETE FROM dispatch_items i WHERE i.group_id = dispatch_complete.group_id AND i.id = ANY(delivered)
        RETURNING octet_length(i.body) AS size)
    SELECT count(*), COALESCE(sum(size), 0) INTO removed, removed_bytes FROM gone;
    IF EXISTS (SELECT 1 FROM dispatch_items i WHERE i.group_id = dispatch_complete.group_id) THEN
        UPDATE dispatch_groups g
        SET lease_token = NULL, lease_until = NULL, overwrite = false, attempts = 0, last_error = NULL,
            fire_at = CASE WHEN more THEN now() ELSE COALESCE(g.next_fire_at, now()) END, next_fire_at = NULL,
            items = g.items - removed, item_bytes = g.item_bytes - removed_bytes
        WHERE g.id = dispatch_complete.group_id;
    ELSE
        DELETE FROM dispatch_groups g WHERE g.id = dispatch_complete.group_id;
    END IF;
END;
$$;
