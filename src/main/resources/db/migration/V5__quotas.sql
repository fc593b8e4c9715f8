-- Quotas per project. Cheap counts (queues of a project, subscriptions of a queue, notifications of one
-- post) are checked by the statement that would exceed them; the costly ones (messages in a queue, pending
-- delivery groups of a project) are counted by a periodic usage check, which records here what is over its
-- limit, so that a post or push reads one primary key to know.
CREATE TABLE quota_breaches (
    project  text NOT NULL,
    kind     text NOT NULL CHECK (kind IN ('messages', 'groups')),
    -- The queue, for 'messages'; 0 for a project-wide kind.
    queue_id bigint NOT NULL DEFAULT 0,
    found_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project, kind, queue_id)
);

-- Fails the whole statement (so nothing it wrote is kept) with SQLSTATE PQ403 or PQ429 and the refusal as its
-- message, which Pigeon answers as 403 or 429. Statements call it only in the branch where a limit is reached
-- ("within OR pigeon_refuse(...)"), so a request within its quotas never calls it. Returns boolean so that it
-- can stand in such a condition.
CREATE FUNCTION pigeon_refuse(status text, refusal text)
RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'PQ' || status, MESSAGE = refusal;
END;
$$;

-- Dead groups are deleted after pigeon.dispatch.dead-retention.
CREATE INDEX dispatch_groups_dead_at ON dispatch_groups (dead_at) WHERE state = 'dead';
