-- The minimal queue the ratio benchmark measures Pigeon against: one table, hand-written SQL, nothing else (no
-- tenants, TTLs, claims table, quotas or notifications). Loaded into the peers' database by PeerCycles.
CREATE SCHEMA IF NOT EXISTS minimal;
CREATE TABLE IF NOT EXISTS minimal.messages (
    queue      int NOT NULL,
    id         bigint GENERATED ALWAYS AS IDENTITY,
    visible_at timestamptz NOT NULL DEFAULT now(),
    body       jsonb NOT NULL,
    PRIMARY KEY (queue, id)
);
