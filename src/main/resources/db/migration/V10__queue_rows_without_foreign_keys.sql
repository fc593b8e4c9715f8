-- Messages and claims no longer reference their queue through a foreign key. The key's check ran for every message
-- posted (a trigger per row, each locking the queue's row FOR KEY SHARE), and concurrent posts and claims of one
-- queue shared that lock, so every overlap created a multixact on the queue's row: measured at 16 clients on one
-- queue (the full cycle, three pairs of runs on one database with the keys added and dropped in turn), PostgreSQL
-- spent 132-155 ms of CPU per 1,000 messages with the keys and 107-127 without, and moved 8-14 % more without.
--
-- What the keys guaranteed, that no row outlives its queue, is kept otherwise: deleting a queue deletes its messages
-- and claims in the same statement and records the queue's id here. A post or claim whose statement read the queue
-- before that delete committed may still write rows for it afterwards (no reader sees them: every read goes through
-- the queue's id, and a queue made again under the name gets a new one); the sweeper deletes such rows once the
-- queue has been gone long enough for every statement that saw it to have ended, then forgets the id.
ALTER TABLE messages DROP CONSTRAINT messages_queue_id_fkey;
ALTER TABLE claims DROP CONSTRAINT claims_queue_id_fkey;

CREATE TABLE dropped_queues (
    queue_id   bigint PRIMARY KEY,
    dropped_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dropped_queues_age ON dropped_queues (dropped_at);
