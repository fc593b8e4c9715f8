-- Zaqar's pools and flavors: the catalogue of the PostgreSQL servers that may hold queues, kept in the database
-- Pigeon is configured with. A pool's uri names its server (with its credentials: this table is the operator's
-- and never leaves the catalogue database; answers and logs show the uri without its password). weight 0 takes no
-- new queues. A flavor is a named class of pools: a pool belongs to the flavor its flavor column names.
CREATE TABLE pools (
    name       text COLLATE "C" PRIMARY KEY,
    uri        text NOT NULL,
    weight     bigint NOT NULL CHECK (weight BETWEEN 0 AND 4294967295),
    flavor     text COLLATE "C",
    options    jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(options) = 'object'),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT pools_uri_key UNIQUE (uri)
);
CREATE INDEX pools_flavor ON pools (flavor) WHERE flavor IS NOT NULL;

CREATE TABLE flavors (
    name       text COLLATE "C" PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Where each queue lives, chosen once, when it is first written to, and kept (also after the queue is deleted, so
-- that a replica's memory of it never goes stale): a registered pool, or this database (pool NULL). A queue of this
-- database that has no row (one created before pools existed) is found here, and given its row when next placed.
-- The rows of a pool go with it (it can only be deleted while it holds no queues).
CREATE TABLE placements (
    project    text COLLATE "C" NOT NULL,
    queue      text COLLATE "C" NOT NULL,
    pool       text COLLATE "C" REFERENCES pools (name) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (project, queue)
);
CREATE INDEX placements_pool ON placements (pool) WHERE pool IS NOT NULL;
