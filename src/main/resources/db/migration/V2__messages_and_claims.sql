-- Messages. The identity id is both the order of a queue and the paging marker.
-- Indexes are chosen for the hot paths:
--   * primary key (queue_id, id): listing and paging, get/delete by id, the queue's cascade;
--   * messages_free: the claim's scan over unclaimed rows only, so a claim never steps over
--     claimed rows however many there are;
--   * messages_claim_deadline: the few claimed rows whose claim has ended, which a claim may
--     take at once, before the sweeper returns them to the free set;
--   * messages_expiry: the sweeper's batches of expired rows.
CREATE TABLE messages (
    id               bigint GENERATED ALWAYS AS IDENTITY,
    queue_id         bigint NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    client_id        uuid NOT NULL,
    ttl              integer NOT NULL,
    body             text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    expires_at       timestamptz NOT NULL,
    claim_id         uuid,
    claim_expires_at timestamptz,
    PRIMARY KEY (queue_id, id),
    CONSTRAINT messages_claim_complete CHECK ((claim_id IS NULL) = (claim_expires_at IS NULL))
);

CREATE INDEX messages_free ON messages (queue_id, id) WHERE claim_id IS NULL;
CREATE INDEX messages_claim_deadline ON messages (queue_id, claim_expires_at) WHERE claim_id IS NOT NULL;
CREATE INDEX messages_expiry ON messages (expires_at);

-- Claims. message_ids lists what the claim took, so that reading, renewing and releasing a
-- claim go straight to its rows through the primary key.
CREATE TABLE claims (
    id          uuid NOT NULL,
    queue_id    bigint NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    ttl         integer NOT NULL,
    grace       integer NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    message_ids bigint[] NOT NULL,
    PRIMARY KEY (queue_id, id)
);

CREATE INDEX claims_expiry ON claims (expires_at);

-- Both tables churn: every message is inserted, updated by its claim and deleted. Leave room on
-- each page for new row versions and let autovacuum act on small fractions, without throttling.
ALTER TABLE messages SET (fillfactor = 80,
    autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 0);
ALTER TABLE claims SET (fillfactor = 80,
    autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0);
