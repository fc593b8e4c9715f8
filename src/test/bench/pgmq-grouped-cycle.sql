-- PGMQ's cycle on grouped messages (pgbench -M prepared; variables: queue, bodies, groups, grouped), for the groups
-- benchmark: send_batch 10 whose messages name groups "g<n>" (PGMQ's x-pgmq-group header) in turn from a random
-- start, as wrk-cycle.lua's BENCH_GROUPS spreads Pigeon's; read 10 hidden for 60 s with PGMQ's grouped FIFO read
-- (read_grouped, PGMQ 1.8 and later) when grouped is 1, else with its plain read; delete those by id.
\set start random(0, :groups - 1)
SELECT pgmq.send_batch('q' || :queue, :bodies::jsonb[],
    ARRAY(SELECT jsonb_build_object('x-pgmq-group', 'g' || ((:start + i) % :groups)) FROM generate_series(0, 9) i ORDER BY i));
\if :grouped
SELECT coalesce(array_agg(msg_id), '{}') AS ids FROM pgmq.read_grouped('q' || :queue, 60, 10)
\gset
\else
SELECT coalesce(array_agg(msg_id), '{}') AS ids FROM pgmq.read('q' || :queue, 60, 10)
\gset
\endif
SELECT pgmq.delete('q' || :queue, :ids::bigint[]);
