-- The console's flow charts (issue 31): each queue's totals (posted, deleted) as they stood at the end of each minute in
-- which they changed, written by the replica that takes the per-queue sample and kept a little over an hour. A minute
-- without a point is a minute in which nothing changed, so an idle queue costs no more rows; a queue holds at most 63,
-- and a queue idle for longer keeps its last point only (the base of its next rate). A deleted queue's points are dropped
-- once they are an hour old (queue ids are never reused).
CREATE TABLE queue_counter_history (
    queue_id bigint NOT NULL,
    minute   timestamptz NOT NULL,
    posted   bigint NOT NULL,
    deleted  bigint NOT NULL,
    PRIMARY KEY (queue_id, minute)
);
CREATE INDEX queue_counter_history_minute ON queue_counter_history (minute);
