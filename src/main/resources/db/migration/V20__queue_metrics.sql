-- Per-queue metrics (issue 30): what /q/metrics/queues serves, the same from every replica, because it is read from
-- here and not from a replica's memory.
--
-- queue_samples: each queue's messages by state, counted every pigeon.queue-metrics.sample-period by one replica at a
-- time (an advisory lock), never on a scrape. A row is rewritten only when a count changed, so an idle queue costs its
-- sample no write. The oldest ready message is kept as its post time; its age is taken against the run's time below.
-- estimated: the queue held more live messages than one sample counts (pigeon.queue-metrics.exact-count-limit), and
-- its counts are extrapolated from the oldest ones.
CREATE TABLE queue_samples (
    queue_id        bigint PRIMARY KEY,
    ready           bigint NOT NULL,
    claimed         bigint NOT NULL,
    delayed         bigint NOT NULL,
    oldest_ready_at timestamptz,
    estimated       boolean NOT NULL
);

-- Totals since the queue was made: each replica counts in memory (no statement added to a post, claim or delete) and
-- adds what it counted here every sample period; dead-letter moves are added by the sweeper's own statement.
CREATE TABLE queue_counters (
    queue_id                bigint PRIMARY KEY,
    posted                  bigint NOT NULL DEFAULT 0,
    claimed                 bigint NOT NULL DEFAULT 0,
    deleted                 bigint NOT NULL DEFAULT 0,
    empty_claims            bigint NOT NULL DEFAULT 0,
    dead_lettered           bigint NOT NULL DEFAULT 0,
    notifications_delivered bigint NOT NULL DEFAULT 0,
    notifications_failed    bigint NOT NULL DEFAULT 0
);

-- When this database was last sampled: a replica samples only when the last sample is (nearly) a period old, so that
-- replicas ticking at different moments still sample about once per period between them.
CREATE TABLE queue_sample_runs (
    only_row   boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    sampled_at timestamptz NOT NULL
);
INSERT INTO queue_sample_runs (sampled_at) VALUES ('-infinity');
