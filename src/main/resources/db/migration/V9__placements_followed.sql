-- Requests now follow placements. Queues made before are placed where they are (at home), so that every replica
-- routes them from memory instead of asking the catalogue on each request.
INSERT INTO placements (project, queue, pool)
SELECT project, name, NULL FROM queues
ON CONFLICT (project, queue) DO NOTHING;

-- Delivery groups of /v3 are spread over the pools. Each pool's group ids start in a block of their own (block n at
-- n * 2^40; the configured database keeps block 0), so that a group id alone names one group over all of them.
CREATE SEQUENCE pool_id_blocks START 1;
