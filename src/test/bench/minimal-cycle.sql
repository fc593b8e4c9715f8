-- The minimal cycle, three autocommit statements (pgbench -M prepared; variables: queue, bodies): post 10, take the
-- 10 oldest visible (hidden for 60 s, skipping rows another client holds), delete what was taken.
INSERT INTO minimal.messages (queue, body) SELECT :queue, b FROM unnest(:bodies::jsonb[]) AS b;
WITH taken AS (UPDATE minimal.messages SET visible_at = now() + interval '60 seconds' WHERE queue = :queue AND id IN (SELECT id FROM minimal.messages WHERE queue = :queue AND visible_at <= now() ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED) RETURNING id) SELECT coalesce(array_agg(id), '{}') AS ids FROM taken
\gset
DELETE FROM minimal.messages WHERE queue = :queue AND id = ANY(:ids::bigint[]);
