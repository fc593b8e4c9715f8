-- The SQS API's accounts (issue 42): the 12-digit account id that names a project in queue URLs and ARNs, allocated
-- at random on the project's first SQS request and never changed, unique both ways. Kept on the configured
-- (catalogue) database only, which every replica reads; the table exists, empty, on every pool too, since every
-- database is migrated alike. A project's id may be any printable text up to 256 characters, an account id must be
-- 12 digits: a table, not a function of the project's name, so that no two projects can share one.
CREATE TABLE sqs_accounts (
    project    text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL UNIQUE CHECK (account_id ~ '^[0-9]{12}$'),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- When a queue's metadata last changed (through either API), for SQS's LastModifiedTimestamp; null until the first
-- change, when the queue's created_at stands for it. Set by the database's clock in the statements that change it.
ALTER TABLE queues ADD COLUMN metadata_changed_at timestamptz;
