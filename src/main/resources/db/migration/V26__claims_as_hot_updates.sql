-- A claim of a message is a HOT update (issue 41, decision 0003). PostgreSQL writes an update as heap-only (no new
-- index entry, one WAL record) only when no indexed column changes and the new version fits on the row's page. A claim
-- changes claim_id, claim_expires_at, claim_count and, when it lengthens the message's life, ttl and expires_at; until
-- now claim_id stood in the predicates of messages_free and messages_claim_deadline and claim_expires_at was a key of
-- the second, so every claim wrote a new entry in every index of the table (5-6 WAL records per claimed message).
--
-- From here no index of messages names a column a claim changes but expires_at (which the claim rewrites only when it
-- really lengthens a message's life). Free messages are found through indexes on what a claim never changes: the
-- undelayed ones in id order, the delayed ones by when they become visible (so messages delayed far into the future
-- are never stepped over); the claim state is read from the row. The end of a queue's claims is read from the claims
-- table (claims_queue_deadline), not from the messages.
CREATE INDEX messages_ready ON messages (queue_id, id) WHERE visible_at IS NULL;
CREATE INDEX messages_delayed ON messages (queue_id, visible_at) WHERE visible_at IS NOT NULL;
CREATE INDEX claims_queue_deadline ON claims (queue_id, expires_at);

DROP INDEX messages_free;
DROP INDEX messages_claim_deadline;

-- Room on each page for the new versions of the rows a claim takes (a HOT update must stay on the row's page, and the
-- old versions are not yet dead while the claim runs). Claiming 10 at a time from a backlog of 50,000 small messages,
-- the share of HOT updates was 1.00 at fillfactor 70, 0.87 at 80 (V1's), 0.78 at 90, 0.68 at 100 (decision 0003).
-- Applies to pages filled from now on; existing pages keep their rows until they leave.
ALTER TABLE messages SET (fillfactor = 70);
