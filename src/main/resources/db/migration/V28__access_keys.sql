-- Access keys of the SQS API (issue 42, docs/decisions/0018-access-keys-and-sigv4.md): a project's key pairs for
-- Signature Version 4. The secret is not stored: it is derived, when a request is checked, from the message key
-- named by derived_from (pigeon.encryption.keys) and the key's id and project, so that whoever reads the database
-- without the deployment's keys holds no secret. A revoked key is kept a day (listed as revoked), then deleted by the
-- next key made for its project. Read and written on the configured database only (pools get the table, unused).
CREATE TABLE access_keys (
    access_key_id text PRIMARY KEY,
    project text NOT NULL,
    derived_from text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);

CREATE INDEX access_keys_project ON access_keys (project, created_at);
