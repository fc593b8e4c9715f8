-- v2: delayed messages are invisible until visible_at (NULL: visible at once); every claim of a
-- message counts, for dead-letter queues.
ALTER TABLE messages ADD COLUMN visible_at timestamptz;
ALTER TABLE messages ADD COLUMN claim_count integer NOT NULL DEFAULT 0;
