-- Dead-letter redrive (issue 30, part 3): moving a dead-letter queue's messages back to the queues they came from.
--
-- The queue a message was dead-lettered from, by the name it is stored under (its project is the dead-letter queue's:
-- a dead-letter queue always lives in its queue's project and database). Set by the sweeper's dead-letter move, cleared
-- by a redrive; NULL for every other message, and for the messages dead-lettered before this migration. A name, not a
-- queue id, so that a queue deleted and made again under its name is still where its messages go back to. Adding a
-- column with no default rewrites nothing: the upgrade is instant however many messages there are, and the column
-- costs the rows that do not use it nothing.
ALTER TABLE messages ADD COLUMN dead_letter_source text COLLATE "C";

-- A redrive task: moves the messages of one queue (queue_id, named queue) that were there when it started (ids up to
-- upto_id) to target, or each to its dead_letter_source when target is NULL, at most rate messages per second. It
-- lives in the database of its queue, beside the messages it moves, so that each batch moves its messages and records
-- its progress (last_id: every message up to it has been moved or skipped) in one transaction: a batch is moved
-- exactly once whatever replica runs it and whenever one dies. The replica that runs a task holds its lease
-- (lease_token, lease_until, renewed by every batch, as a delivery group's); any replica takes a running task whose
-- lease has lapsed. A task that ended (done, cancelled, failed) is kept until pigeon.redrive.retention has passed.
CREATE TABLE redrive_tasks (
    id          uuid PRIMARY KEY,
    project     text COLLATE "C" NOT NULL,
    queue       text COLLATE "C" NOT NULL,
    queue_id    bigint NOT NULL,
    target      text COLLATE "C",
    rate        integer NOT NULL CHECK (rate > 0),
    state       text NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'done', 'cancelled', 'failed')),
    moved       bigint NOT NULL DEFAULT 0,
    skipped     bigint NOT NULL DEFAULT 0,
    last_id     bigint NOT NULL DEFAULT 0,
    upto_id     bigint NOT NULL,
    reason      text,
    lease_token uuid,
    lease_until timestamptz,
    started_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    CONSTRAINT redrive_tasks_finished CHECK ((state = 'running') = (finished_at IS NULL))
);

-- One running task per queue: a second start is refused (409) by this index, whatever replica takes it.
CREATE UNIQUE INDEX redrive_tasks_running ON redrive_tasks (queue_id) WHERE state = 'running';
-- The tasks of a queue (the listing), and of a project (its bound, pigeon.redrive.max-tasks-per-project).
CREATE INDEX redrive_tasks_queue ON redrive_tasks (project, queue, started_at);
-- The replicas' look for running tasks whose lease has lapsed, and the sweeper's for ended tasks past their retention.
CREATE INDEX redrive_tasks_leases ON redrive_tasks (lease_until) WHERE state = 'running';
CREATE INDEX redrive_tasks_ended ON redrive_tasks (finished_at) WHERE state <> 'running';
