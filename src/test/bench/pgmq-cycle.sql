-- PGMQ 1.5.1's cycle (pgbench -M prepared; variables: queue, bodies): send_batch 10, read 10 (hidden for 60 s),
-- delete those by id. Queue n is PGMQ's queue "q<n>".
SELECT pgmq.send_batch('q' || :queue, :bodies::jsonb[]);
SELECT coalesce(array_agg(msg_id), '{}') AS ids FROM pgmq.read('q' || :queue, 60, 10)
\gset
SELECT pgmq.delete('q' || :queue, :ids::bigint[]);
