-- Values every replica of one deployment must share and no two deployments may: created once, here, by the
-- migration (which runs once per database), and read by each replica at start. 'call-marker' keys the header that
-- marks Pigeon's own webhook calls (io.pigeon.dispatch.CallMarker) when pigeon.dispatch.call-marker-secret is not
-- set: 244 random bits (two version-4 UUIDs), never a constant.
CREATE TABLE deployment_secrets (
    name text PRIMARY KEY,
    value text NOT NULL
);
INSERT INTO deployment_secrets (name, value)
VALUES ('call-marker', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
