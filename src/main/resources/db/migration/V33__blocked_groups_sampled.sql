-- Blocked groups in the per-queue sample (issue 43, decision 0020): how many groups of a fifo queue a live claim held
-- a message of when the queue was last sampled, served as pigeon_queue_groups_blocked. NULL for a queue of another
-- ordering, whose groups never block (and for every queue until its next sample). Nullable without a default, so adding
-- it rewrites nothing.
ALTER TABLE queue_samples ADD COLUMN blocked_groups bigint;
