-- Long-polling claims and pops: a replica that holds requests waiting for a queue's messages marks the queue with a
-- lease (renewed while it holds them); a statement that makes messages claimable in a queue whose lease is live tells
-- the replicas (pg_notify on pigeon_queue_ready), and only then: pg_notify serialises commits, so posts to queues
-- nobody waits on never send one. The post statements read the queue row already; no index is needed.
-- Adding a column with no default rewrites nothing: the upgrade is instant however many queues there are.
ALTER TABLE queues ADD COLUMN wake_until timestamptz;
