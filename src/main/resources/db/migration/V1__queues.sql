-- The queue catalogue. Names compare in byte order (COLLATE "C") so that paging by name is the
-- same on every server, whatever its locale.
CREATE TABLE queues (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    project     text COLLATE "C" NOT NULL,
    name        text COLLATE "C" NOT NULL,
    metadata    jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT queues_project_name_key UNIQUE (project, name),
    CONSTRAINT queues_metadata_is_object CHECK (jsonb_typeof(metadata) = 'object')
);
