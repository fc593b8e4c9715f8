-- Sealed messages whose body does not open (its key is no longer configured, or the row was changed) are set aside
-- here by the claim or pop that finds them, in place of being handed out: a claim or pop answers the messages that
-- open and takes nothing else, and an unreadable message no longer blocks the head of its queue. The row is kept
-- as it was stored (sealed), so that an operator who restores a key can move it back; it is deleted when it would
-- have expired, or with its queue. No foreign key, as messages (V10).
CREATE TABLE messages_set_aside (
    queue_id     bigint NOT NULL,
    id           bigint NOT NULL,
    client_id    uuid NOT NULL,
    ttl          integer NOT NULL,
    body         text NOT NULL,
    key_id       text,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    set_aside_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (queue_id, id)
);
CREATE INDEX messages_set_aside_expiry ON messages_set_aside (expires_at);

-- A sealed message moved to a dead-letter queue is sealed for the queue it was posted to (the queue is part of
-- what the seal authenticates): it waits invisible (visible_at 'infinity', which no delay can give) until the
-- sweeper has sealed it again for the dead-letter queue. This index finds those few rows.
CREATE INDEX messages_resealing ON messages (queue_id, id) WHERE visible_at = 'infinity';
