-- SQS ReceiveRequestAttemptId on FIFO queues (issue 43): what a receive made with an attempt id returned, so that a
-- retry with the same id within 5 minutes answers the same messages and receipt handles (a receipt handle is the
-- message id, the claim id and the receive count, signed: io.pigeon.sqs.ReceiptHandles), as long as that receive
-- still holds them as it left them: the same claim and receive count, and the visibility deadline it set
-- (visible_until, moved by each replay) still ahead. A message deleted, made visible or given another deadline since
-- makes the id spent. Rows are keyed by the queue's id (a queue deleted and created again is another queue) and
-- carry the project, so that a receive can tell how many its project holds (pigeon.sqs.max-receive-attempts-per-
-- project) on the index below; the sweeper deletes them after expires_at (they count as forgotten from then).
CREATE TABLE sqs_receive_attempts (
    queue_id       bigint NOT NULL,
    attempt_id     text COLLATE "C" NOT NULL CHECK (length(attempt_id) BETWEEN 1 AND 128),
    project        text COLLATE "C" NOT NULL,
    claim_id       uuid NOT NULL,
    -- The messages the receive answered, in its order, with the receive count each had then (at most 10: SQS's
    -- MaxNumberOfMessages).
    message_ids    bigint[] NOT NULL CHECK (cardinality(message_ids) BETWEEN 1 AND 10),
    receive_counts int[] NOT NULL CHECK (cardinality(receive_counts) = cardinality(message_ids)),
    visible_until  timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    PRIMARY KEY (queue_id, attempt_id)
);

CREATE INDEX sqs_receive_attempts_project ON sqs_receive_attempts (project, expires_at);
CREATE INDEX sqs_receive_attempts_expires_at ON sqs_receive_attempts (expires_at);
