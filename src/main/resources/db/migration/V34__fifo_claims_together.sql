-- Fifo claims taken together, each filled a group at a time (issue 43's measured goal; decision 0020).
--
-- Each fifo claim of a queue was a statement and a commit of its own holding the queue's lock (V31) through its WAL
-- flush: one queue served about 330 fifo claims a second however many consumers it had. The claims waiting for their
-- turn on a replica are now taken in one statement, under one hold of the lock: pigeon_fifo_free_each hands out the
-- messages of several claims at once, claim by claim in the order given, as the same claims taken one after the other
-- would be handed them (what a claim takes, the claims after it see as held).
--
-- And each claim is filled a group at a time, as SQS fills a receive from a FIFO queue: the oldest eligible message
-- not yet handed out names a group; the claim takes as many of that group's eligible messages as it still wants, in
-- post order; then the next group, by its oldest eligible message; until it has what it wants or nothing eligible is
-- left. A claim taking the oldest message of ten groups (messages posted round-robin over groups) blocked ten groups
-- for ten messages, and left the other consumers of the queue nothing to take; filled a group at a time, each claim
-- holds as few groups as its count allows and the queue's consumers work on different groups in parallel. Within a
-- group nothing changes: its messages are taken in post order, by one live claim at a time. A message without a group
-- is a group of its own.
--
-- Eligible is what V31's pigeon_fifo_free said: free (unclaimed, or its claim ended), visible, unexpired, not dead
-- (claimed as often as the dead-letter rule allows), and, when it has a group, no live claim holds a message of the
-- group and no older live message of the group is not yet visible. Each statement of the function runs on a snapshot
-- taken after the queue's lock was granted (plpgsql takes one per statement of a VOLATILE function), so it sees what
-- the claims before it committed; the caller locks the returned rows by id, waiting for other holders (V31).
-- Rows: (claim_index, message_id), claim_index the 1-based position in wanted of the claim the message goes to.
CREATE FUNCTION pigeon_fifo_free_each(queue bigint, wanted integer[], max_claims integer)
RETURNS TABLE (claim_index integer, message_id bigint)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    given_groups text[] := '{}';
    given_ids bigint[] := '{}';
    claim integer;
    still integer;
    oldest_ids bigint[];
    oldest_groups text[];
    every_one boolean;
    i integer;
    taking bigint[];
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('pigeon.fifo:' || queue, 0));
    FOR claim IN 1 .. coalesce(array_length(wanted, 1), 0) LOOP
        still := wanted[claim];
        IF still IS NULL OR still < 1 THEN
            CONTINUE; -- asks for nothing (Pigeon asks for 1 at least): takes nothing, the claims after it go on
        END IF;
        -- The oldest eligible messages not handed out yet, of groups not handed out yet, twice as many as the claim
        -- wants: the groups the claim is filled from are among theirs (each group's oldest eligible message comes
        -- before any message of the groups after it), and when fewer come, they are every eligible message left.
        SELECT array_agg(o.id ORDER BY o.id), array_agg(o.message_group ORDER BY o.id)
        INTO oldest_ids, oldest_groups
        FROM (SELECT m.id, m.message_group
              FROM messages m
              WHERE m.queue_id = queue
                AND (m.claim_id IS NULL OR m.claim_expires_at <= now())
                AND (m.visible_at IS NULL OR m.visible_at <= now())
                AND m.expires_at > now()
                AND (max_claims IS NULL OR m.claim_count < max_claims)
                AND m.id <> ALL (given_ids)
                AND (m.message_group IS NULL OR (
                    m.message_group <> ALL (given_groups)
                    AND NOT EXISTS (SELECT 1 FROM messages c
                                    WHERE c.queue_id = queue AND c.message_group = m.message_group
                                      AND c.claim_id IS NOT NULL AND c.claim_expires_at > now()
                                      AND c.expires_at > now())
                    AND NOT EXISTS (SELECT 1 FROM messages d
                                    WHERE d.queue_id = queue AND d.message_group = m.message_group AND d.id < m.id
                                      AND d.visible_at > now() AND d.expires_at > now()
                                      AND (max_claims IS NULL OR d.claim_count < max_claims))))
              ORDER BY m.id
              LIMIT 2 * still) o;
        IF oldest_ids IS NULL THEN
            RETURN; -- nothing eligible is left, for this claim or any after it
        END IF;
        every_one := cardinality(oldest_ids) < 2 * still;
        i := 0;
        WHILE still > 0 AND i < cardinality(oldest_ids) LOOP
            i := i + 1;
            IF oldest_groups[i] IS NULL THEN
                taking := ARRAY[oldest_ids[i]];
            ELSIF oldest_groups[i] = ANY (given_groups) THEN
                CONTINUE; -- taken with its group's oldest message
            ELSIF every_one THEN
                -- Every eligible message of the group is among the oldest read.
                taking := ARRAY(SELECT o.id FROM unnest(oldest_ids, oldest_groups) AS o (id, message_group)
                                WHERE o.message_group = oldest_groups[i] ORDER BY o.id LIMIT still);
            ELSE
                -- The group's eligible messages from its oldest on, in post order, as many as the claim still wants:
                -- its free undelayed ones, those of ended claims and those delayed but due, each through its own
                -- index (V31), the first of each kind, so that the first of all three are among them.
                taking := ARRAY(
                    SELECT e.id FROM (
                        (SELECT m.id FROM messages m
                         WHERE m.queue_id = queue AND m.message_group = oldest_groups[i] AND m.id >= oldest_ids[i]
                           AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.expires_at > now()
                           AND (max_claims IS NULL OR m.claim_count < max_claims)
                         ORDER BY m.id LIMIT still)
                        UNION
                        (SELECT m.id FROM messages m
                         WHERE m.queue_id = queue AND m.message_group = oldest_groups[i] AND m.id >= oldest_ids[i]
                           AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now()
                           AND (m.visible_at IS NULL OR m.visible_at <= now()) AND m.expires_at > now()
                           AND (max_claims IS NULL OR m.claim_count < max_claims)
                         ORDER BY m.id LIMIT still)
                        UNION
                        (SELECT m.id FROM messages m
                         WHERE m.queue_id = queue AND m.message_group = oldest_groups[i] AND m.id >= oldest_ids[i]
                           AND m.visible_at IS NOT NULL AND m.visible_at <= now()
                           AND (m.claim_id IS NULL OR m.claim_expires_at <= now()) AND m.expires_at > now()
                           AND (max_claims IS NULL OR m.claim_count < max_claims)
                         ORDER BY m.id LIMIT still)) e
                    -- A message after one of its group not yet visible waits for it.
                    WHERE NOT EXISTS (SELECT 1 FROM messages d
                                      WHERE d.queue_id = queue AND d.message_group = oldest_groups[i]
                                        AND d.id < e.id AND d.visible_at > now() AND d.expires_at > now()
                                        AND (max_claims IS NULL OR d.claim_count < max_claims))
                    ORDER BY e.id
                    LIMIT still);
            END IF;
            IF oldest_groups[i] IS NOT NULL THEN
                given_groups := given_groups || oldest_groups[i];
            END IF;
            given_ids := given_ids || taking;
            still := still - cardinality(taking);
            RETURN QUERY SELECT claim, unnest(taking);
        END LOOP;
    END LOOP;
END
$$;

-- A lone fifo claim's or pop's messages, filled a group at a time as above.
CREATE OR REPLACE FUNCTION pigeon_fifo_free(queue bigint, wanted integer, max_claims integer) RETURNS bigint[]
LANGUAGE sql VOLATILE AS $$
SELECT ARRAY(SELECT f.message_id FROM pigeon_fifo_free_each(queue, ARRAY[wanted], max_claims) f ORDER BY f.message_id);
$$;
