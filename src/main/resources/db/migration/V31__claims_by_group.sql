-- Claims by group (issue 43, decision 0020): what the "fifo" and "fair" orderings of a queue read.
--
-- messages_group_claimed: the claimed rows of groups (live or ended claims), so that "does a live claim hold a message
-- of this group?" is one probe of the few rows in flight, however long the group's backlog.
-- messages_group_delayed: the delayed rows of groups (a delayed post, a release with a delay, a row set aside), so that
-- "is an older message of this group not yet visible?" reads only those.
-- messages_group_ready: the free undelayed rows of groups by group and age, so that a fair claim finds each group's
-- oldest free messages by a skip scan over the groups, not by reading the whole backlog.
-- All three hold grouped rows only: a queue whose messages name no group (every Zaqar client's) pays nothing for them.
CREATE INDEX messages_group_claimed ON messages (queue_id, message_group)
    WHERE claim_id IS NOT NULL AND message_group IS NOT NULL;
CREATE INDEX messages_group_delayed ON messages (queue_id, message_group, id)
    WHERE visible_at IS NOT NULL AND message_group IS NOT NULL;
CREATE INDEX messages_group_ready ON messages (queue_id, message_group, id)
    WHERE claim_id IS NULL AND visible_at IS NULL AND message_group IS NOT NULL;

-- The free messages a claim (or pop) on a "fifo" queue may take, oldest first, at most wanted; max_claims is the
-- queue's dead-letter claim limit (NULL: none). It first takes a transaction-scoped lock of the queue, so that the
-- fifo claims of one queue run one at a time, whichever replica sends them; and because the function is VOLATILE, the
-- statement that picks the messages runs on a snapshot taken after that lock is granted (a VOLATILE function takes a
-- fresh snapshot for each statement it runs), so it sees what the claim before it committed. The caller's statement
-- then locks the rows by id, waiting for any other holder (the sweeper, a delete) rather than skipping them: a fifo
-- claim never passes over a free message of an eligible group because another statement holds its row.
-- A message is eligible when it is free (unclaimed, or its claim has ended), visible, not expired, not dead (claimed
-- as often as the dead-letter rule allows: it leaves its group when its claim ends), and, when it has a group, no live
-- claim holds a message of that group and no older live message of that group is not yet visible. A message without a
-- group is a group of its own. Taken oldest first, a claim takes a group's messages in post order.
CREATE FUNCTION pigeon_fifo_free(queue bigint, wanted integer, max_claims integer) RETURNS bigint[]
LANGUAGE sql VOLATILE AS $$
SELECT pg_advisory_xact_lock(hashtextextended('pigeon.fifo:' || queue, 0));
SELECT ARRAY(
    SELECT m.id FROM messages m
    WHERE m.queue_id = queue
      AND (m.claim_id IS NULL OR m.claim_expires_at <= now())
      AND (m.visible_at IS NULL OR m.visible_at <= now())
      AND m.expires_at > now()
      AND (max_claims IS NULL OR m.claim_count < max_claims)
      AND (m.message_group IS NULL OR (
          NOT EXISTS (SELECT 1 FROM messages c
                      WHERE c.queue_id = queue AND c.message_group = m.message_group
                        AND c.claim_id IS NOT NULL AND c.claim_expires_at > now() AND c.expires_at > now())
          AND NOT EXISTS (SELECT 1 FROM messages d
                          WHERE d.queue_id = queue AND d.message_group = m.message_group AND d.id < m.id
                            AND d.visible_at > now() AND d.expires_at > now()
                            AND (max_claims IS NULL OR d.claim_count < max_claims))))
    ORDER BY m.id
    LIMIT wanted);
$$;
