-- The minimal cycle, three autocommit statements (pgbench -M prepared; variables: queue, bodies): post 10, take the
-- 10 oldest visible (hidden for 60 s, skipping rows another client holds), delete what was taken. The rows are picked
-- in ARRAY(...), which runs once: as "id IN (SELECT ...)" the planner may rescan the locking subquery for every row
-- it joins (on a table whose statistics say it is empty, as after the benchmark's VACUUM), and each rescan skips
-- other rows, so the UPDATE ends up waiting on rows other clients hold (measured: 50 cycles/s at 16 clients).
INSERT INTO minimal.messages (queue, body) SELECT :queue, b FROM unnest(:bodies::jsonb[]) AS b;
WITH taken AS (UPDATE minimal.messages SET visible_at = now() + interval '60 seconds' WHERE queue = :queue AND id = ANY(ARRAY(SELECT id FROM minimal.messages WHERE queue = :queue AND visible_at <= now() ORDER BY id LIMIT 10 FOR UPDATE SKIP LOCKED)) RETURNING id) SELECT coalesce(array_agg(id), '{}') AS ids FROM taken
\gset
DELETE FROM minimal.messages WHERE queue = :queue AND id = ANY(:ids::bigint[]);
