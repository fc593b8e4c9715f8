-- Sockets that subscribe themselves (Zaqar's websocket self-subscription). Such a subscription is an ordinary row of
-- its queue (listed, counted by the quota, deleted with the queue) whose subscriber is a value no HTTP request can
-- give, held by the replica that holds the socket: that replica renews socket_lease_until while the socket is open
-- and deletes the row when it closes; the sweeper deletes the rows of a replica that died once their lease has run
-- out. NULL for every other subscription: the webhook and mail dispatcher never reads a row that has a lease.
-- Adding a column with no default rewrites nothing: the upgrade is instant however many subscriptions there are.
ALTER TABLE subscriptions ADD COLUMN socket_lease_until timestamptz;

-- A post asks whether its queue has a live socket subscription (and only then tells the replicas); the sweeper looks
-- for lapsed leases. Socket subscriptions are few beside webhooks: a partial index holds only them, so the post's
-- probe of a queue without one reads an empty range of a small index.
CREATE INDEX subscriptions_socket_leases ON subscriptions (project, source) WHERE socket_lease_until IS NOT NULL;
