-- Idempotent posts: the keys a queue remembers for its window (queue attribute _dedup_window_seconds). A post's
-- Idempotency-Key header (kind 'key') remembers the ids the post answered; a message's dedup_id (kind 'dedup')
-- remembers the id of the message stored under it. Keys are remembered by the queue's project and stored name, not
-- its id, so that a post which creates its queue can take its keys before the queue exists; deleting messages or the
-- queue forgets nothing within the window. The primary key is what makes concurrent repeats store once: the second
-- insert of a key waits for the first transaction and then finds its row (INSERT ... ON CONFLICT).
CREATE TABLE post_keys (
    project      text COLLATE "C" NOT NULL,
    queue        text COLLATE "C" NOT NULL,
    kind         text NOT NULL CHECK (kind IN ('key', 'dedup')),
    key          text COLLATE "C" NOT NULL,
    -- For a 'key': the digest of the post's messages, so that the key reused for another post is refused.
    request_hash bytea,
    -- The ids answered (a 'key': the post's, in request order; a 'dedup': its message's). Null only inside the
    -- transaction that takes the key, before its messages are stored.
    message_ids  bigint[],
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (project, queue, kind, key)
) WITH (fillfactor = 90);

-- The sweeper deletes expired keys in batches (they are invisible from their expiry already).
CREATE INDEX post_keys_expires_at ON post_keys (expires_at);

-- The periodic usage check records a project holding more keys than pigeon.quotas.max-post-keys-per-project.
ALTER TABLE quota_breaches DROP CONSTRAINT quota_breaches_kind_check;
ALTER TABLE quota_breaches ADD CONSTRAINT quota_breaches_kind_check
    CHECK (kind IN ('messages', 'groups', 'items', 'bytes', 'post_keys'));
