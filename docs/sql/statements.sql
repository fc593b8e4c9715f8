-- Every SQL statement Pigeon sends, whole, as the code sends it: the fragments a statement is composed of
-- (FreeMessages, NotificationFanOut, QueueRows, ...) are expanded. Each entry is named Class.CONSTANT after
-- the constant that holds it (StorageHealth.OPERATIONS.<name>: the storage health probe's operations),
-- in package, class and constant order. The ";" that closes each entry is not part of the text sent.
--
-- Written from the code by StatementCatalogueTest (src/test/java/io/pigeon/storage), which fails when this
-- file and the code differ. Do not edit it by hand: after changing a statement, regenerate it with
--   ./mvnw -B -q test -Dtest=StatementCatalogueTest -Dpigeon.statements.write=true
-- and review the statements the change made here.
--
-- No text depends on configuration: every configured value (limits, quotas, refusal texts, batch sizes,
-- the lease and the horizon) is a bound parameter ($n). No statement is built per call. Not listed: the
-- schema and the functions these statements call (pigeon_refuse, dispatch_complete), which are in
-- src/main/resources/db/migration, and the LISTEN on channel pigeon_dispatch that the PostgreSQL
-- client's PgSubscriber sends for the dispatcher.

-- name: AccessKeyStore.CREATE
WITH purged AS (
    DELETE FROM access_keys
    WHERE project = $1 AND revoked_at < now() - interval '1 day'),
held AS (
    SELECT count(*) FILTER (WHERE revoked_at IS NULL) AS live, count(*) AS kept
    FROM access_keys
    WHERE project = $1 AND (revoked_at IS NULL OR revoked_at >= now() - interval '1 day'))
INSERT INTO access_keys (access_key_id, project, derived_from)
SELECT $2, $1, $3 FROM held WHERE live < $4 AND kept < 2 * $4
RETURNING created_at;

-- name: AccessKeyStore.FIND
SELECT project, derived_from FROM access_keys WHERE access_key_id = $1 AND revoked_at IS NULL;

-- name: AccessKeyStore.LIST
SELECT access_key_id, created_at, revoked_at
FROM access_keys
WHERE project = $1 AND (revoked_at IS NULL OR revoked_at >= now() - interval '1 day')
ORDER BY created_at, access_key_id;

-- name: AccessKeyStore.REVOKE
UPDATE access_keys SET revoked_at = COALESCE(revoked_at, now())
WHERE project = $1 AND access_key_id = $2
RETURNING revoked_at;

-- name: AccountStore.ACCOUNT_OF
SELECT account_id FROM sqs_accounts WHERE project = $1;

-- name: AccountStore.PROJECT_OF
SELECT project FROM sqs_accounts WHERE account_id = $1;

-- name: AccountStore.TAKE
WITH taken AS (
    INSERT INTO sqs_accounts (project, account_id) VALUES ($1, $2)
    ON CONFLICT DO NOTHING
    RETURNING account_id)
SELECT account_id FROM taken
UNION ALL
SELECT account_id FROM sqs_accounts WHERE project = $1;

-- name: ClaimStore.CREATE
WITH asked AS (
    SELECT a.claim_index, a.claim_id, a.wanted, a.ttl, a.grace, q.id AS queue_id, CASE WHEN metadata->>'_dead_letter_queue' IS NOT NULL
     THEN (metadata->>'_max_claim_count')::int END AS max_claims,
           (q.metadata->>'_claim_wait_seconds')::int AS wait_default, q.metadata->>'_ordering' AS ordering
    FROM unnest($1::text[], $2::text[], $3::uuid[], $4::int[], $5::int[], $6::int[])
         WITH ORDINALITY AS a (project, name, claim_id, wanted, ttl, grace, claim_index)
    LEFT JOIN queues q ON q.project = a.project AND q.name = a.name),
ranked AS (
    SELECT claim_index, claim_id, ttl, grace, queue_id,
           sum(wanted) OVER w - wanted AS after, sum(wanted) OVER w AS up_to
    FROM asked
    WHERE queue_id IS NOT NULL
    WINDOW w AS (PARTITION BY queue_id ORDER BY claim_index)),
locked AS MATERIALIZED (
    SELECT w.queue_id, o.id, o.rank
    FROM (SELECT queue_id, max_claims, sum(wanted) AS wanted
          FROM asked
          WHERE queue_id IS NOT NULL AND COALESCE(ordering, 'none') = 'none'
          GROUP BY queue_id, max_claims) w
    CROSS JOIN LATERAL unnest(ARRAY(SELECT f.id FROM (
    SELECT u.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = w.queue_id AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND (w.max_claims IS NULL OR m.claim_count < w.max_claims)
        ORDER BY m.id LIMIT w.wanted
        FOR UPDATE OF m SKIP LOCKED) u
    UNION ALL
    SELECT d.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = w.queue_id AND m.claim_id IS NULL AND m.visible_at IS NOT NULL
          AND m.visible_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND (w.max_claims IS NULL OR m.claim_count < w.max_claims)
        ORDER BY m.visible_at LIMIT w.wanted
        FOR UPDATE OF m SKIP LOCKED) d
    UNION ALL
    SELECT r.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = w.queue_id AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND (w.max_claims IS NULL OR m.claim_count < w.max_claims)
        ORDER BY m.claim_expires_at LIMIT w.wanted
        FOR UPDATE OF m SKIP LOCKED) r
) f ORDER BY f.id LIMIT w.wanted)) WITH ORDINALITY AS o (id, rank)),
taken AS (
    SELECT l.queue_id, l.id, r.claim_index, r.claim_id, r.ttl, r.grace
    FROM locked l
    JOIN ranked r ON r.queue_id = l.queue_id AND l.rank > r.after AND l.rank <= r.up_to),
claimed AS (
    UPDATE messages m
    SET claim_id = t.claim_id,
        claim_expires_at = now() + t.ttl * interval '1 second',
        claim_count = m.claim_count + 1,
        first_claimed_at = COALESCE(m.first_claimed_at, now()),
        ttl = GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + t.ttl + t.grace, $7)),
        expires_at = m.created_at + GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + t.ttl + t.grace, $7)) * interval '1 second'
    FROM taken t
    WHERE m.queue_id = t.queue_id AND m.id = t.id
    RETURNING t.claim_index, m.id, m.ttl, m.created_at, m.body, m.key_id, m.claim_count, m.message_group,
              m.traceparent, m.tracestate),
recorded AS (
    INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
    SELECT r.claim_id, r.queue_id, r.ttl, r.grace, now() + r.ttl * interval '1 second', h.ids
    FROM (SELECT claim_index, array_agg(id ORDER BY id) AS ids FROM claimed GROUP BY claim_index) h
    JOIN ranked r ON r.claim_index = h.claim_index)
SELECT a.queue_id, a.claim_index, c.id, c.ttl, floor(extract(epoch FROM now() - c.created_at))::bigint AS age, c.body, c.key_id, c.claim_count,
       c.message_group, c.traceparent, c.tracestate, a.wait_default, a.ordering
FROM asked a LEFT JOIN claimed c ON c.claim_index = a.claim_index
ORDER BY a.claim_index, c.id;

-- name: ClaimStore.CREATE_FAIR
WITH q AS (SELECT id, CASE WHEN metadata->>'_dead_letter_queue' IS NOT NULL
     THEN (metadata->>'_max_claim_count')::int END AS max_claims, (metadata->>'_claim_wait_seconds')::int AS wait_default, metadata->>'_ordering' AS ordering
           FROM queues WHERE project = $1 AND name = $2),
claimed AS (
    UPDATE messages m
    SET claim_id = $3,
        claim_expires_at = now() + $5 * interval '1 second',
        claim_count = m.claim_count + 1,
        first_claimed_at = COALESCE(m.first_claimed_at, now()),
        ttl = GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + $5 + $6, $7)),
        expires_at = m.created_at + GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + $5 + $6, $7)) * interval '1 second'
    FROM q
    WHERE m.queue_id = q.id AND m.id = ANY(ARRAY(
WITH turns AS (
SELECT l.id FROM messages l
WHERE l.queue_id = (SELECT id FROM q WHERE ordering = 'fair')
  AND l.id = ANY(ARRAY(
    WITH RECURSIVE g (message_group) AS (
        (SELECT m.message_group FROM messages m
         WHERE m.queue_id = (SELECT id FROM q WHERE ordering = 'fair') AND m.claim_id IS NULL AND m.visible_at IS NULL
           AND m.message_group IS NOT NULL
         ORDER BY m.message_group LIMIT 1)
        UNION ALL
        SELECT (SELECT m.message_group FROM messages m
                WHERE m.queue_id = (SELECT id FROM q WHERE ordering = 'fair') AND m.claim_id IS NULL AND m.visible_at IS NULL
                  AND m.message_group > g.message_group
                ORDER BY m.message_group LIMIT 1)
        FROM g WHERE g.message_group IS NOT NULL),
    candidates AS (
        SELECT h.id, h.message_group FROM g CROSS JOIN LATERAL (
            SELECT m.id, m.message_group FROM messages m
            WHERE m.queue_id = (SELECT id FROM q WHERE ordering = 'fair') AND m.message_group = g.message_group
              AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
            ORDER BY m.id LIMIT $4) h
        UNION
        (SELECT f.id, f.message_group FROM (
    SELECT u.id, u.message_group FROM (
        SELECT m.id, m.message_group FROM messages m
        WHERE m.queue_id = (SELECT id FROM q WHERE ordering = 'fair') AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.id LIMIT $4
        ) u
    UNION ALL
    SELECT d.id, d.message_group FROM (
        SELECT m.id, m.message_group FROM messages m
        WHERE m.queue_id = (SELECT id FROM q WHERE ordering = 'fair') AND m.claim_id IS NULL AND m.visible_at IS NOT NULL
          AND m.visible_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.visible_at LIMIT $4
        ) d
    UNION ALL
    SELECT r.id, r.message_group FROM (
        SELECT m.id, m.message_group FROM messages m
        WHERE m.queue_id = (SELECT id FROM q WHERE ordering = 'fair') AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.claim_expires_at LIMIT $4
        ) r
) f ORDER BY f.id LIMIT $4))
    SELECT t.id FROM (
        SELECT c.id, row_number() OVER (
                   PARTITION BY COALESCE(c.message_group, c.id::text) ORDER BY c.id) AS turn
        FROM candidates c) t
    ORDER BY t.turn, t.id
    LIMIT $4))
  AND (l.claim_id IS NULL OR l.claim_expires_at <= now())
  AND l.expires_at > now() AND (l.visible_at IS NULL OR l.visible_at <= now())
FOR UPDATE OF l SKIP LOCKED),
filled AS (SELECT f.id FROM (
    SELECT u.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q WHERE ordering = 'fair') AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.id LIMIT ($4 - (SELECT count(*) FROM turns))
        FOR UPDATE OF m SKIP LOCKED) u
    UNION ALL
    SELECT d.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q WHERE ordering = 'fair') AND m.claim_id IS NULL AND m.visible_at IS NOT NULL
          AND m.visible_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.visible_at LIMIT ($4 - (SELECT count(*) FROM turns))
        FOR UPDATE OF m SKIP LOCKED) d
    UNION ALL
    SELECT r.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q WHERE ordering = 'fair') AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.claim_expires_at LIMIT ($4 - (SELECT count(*) FROM turns))
        FOR UPDATE OF m SKIP LOCKED) r
) f ORDER BY f.id LIMIT ($4 - (SELECT count(*) FROM turns)))
SELECT id FROM turns
UNION
SELECT id FROM filled))
    RETURNING m.id, m.ttl, m.created_at, m.body, m.key_id, m.claim_count, m.message_group, m.traceparent,
              m.tracestate),
recorded AS (
    INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
    SELECT $3, q.id, $5, $6, now() + $5 * interval '1 second', ARRAY(SELECT id FROM claimed ORDER BY id)
    FROM q
    WHERE EXISTS (SELECT 1 FROM claimed))
SELECT q.id AS queue_id, 1 AS claim_index, c.id, c.ttl, floor(extract(epoch FROM now() - c.created_at))::bigint AS age, c.body, c.key_id, c.claim_count,
       c.message_group, c.traceparent, c.tracestate, q.wait_default, q.ordering
FROM q LEFT JOIN claimed c ON true
ORDER BY c.id;

-- name: ClaimStore.CREATE_ONE
WITH q AS (SELECT id, CASE WHEN metadata->>'_dead_letter_queue' IS NOT NULL
     THEN (metadata->>'_max_claim_count')::int END AS max_claims, (metadata->>'_claim_wait_seconds')::int AS wait_default, metadata->>'_ordering' AS ordering
           FROM queues WHERE project = $1 AND name = $2),
claimed AS (
    UPDATE messages m
    SET claim_id = $3,
        claim_expires_at = now() + $5 * interval '1 second',
        claim_count = m.claim_count + 1,
        first_claimed_at = COALESCE(m.first_claimed_at, now()),
        ttl = GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + $5 + $6, $7)),
        expires_at = m.created_at + GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + $5 + $6, $7)) * interval '1 second'
    FROM q
    WHERE m.queue_id = q.id AND m.id = ANY(ARRAY(SELECT f.id FROM (
    SELECT u.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q WHERE COALESCE(ordering, 'none') = 'none') AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.id LIMIT $4
        FOR UPDATE OF m SKIP LOCKED) u
    UNION ALL
    SELECT d.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q WHERE COALESCE(ordering, 'none') = 'none') AND m.claim_id IS NULL AND m.visible_at IS NOT NULL
          AND m.visible_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.visible_at LIMIT $4
        FOR UPDATE OF m SKIP LOCKED) d
    UNION ALL
    SELECT r.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q WHERE COALESCE(ordering, 'none') = 'none') AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.claim_expires_at LIMIT $4
        FOR UPDATE OF m SKIP LOCKED) r
) f ORDER BY f.id LIMIT $4))
    RETURNING m.id, m.ttl, m.created_at, m.body, m.key_id, m.claim_count, m.message_group, m.traceparent,
              m.tracestate),
recorded AS (
    INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
    SELECT $3, q.id, $5, $6, now() + $5 * interval '1 second', ARRAY(SELECT id FROM claimed ORDER BY id)
    FROM q
    WHERE EXISTS (SELECT 1 FROM claimed))
SELECT q.id AS queue_id, 1 AS claim_index, c.id, c.ttl, floor(extract(epoch FROM now() - c.created_at))::bigint AS age, c.body, c.key_id, c.claim_count,
       c.message_group, c.traceparent, c.tracestate, q.wait_default, q.ordering
FROM q LEFT JOIN claimed c ON true
ORDER BY c.id;

-- name: ClaimStore.GET
SELECT c.ttl AS claim_ttl, floor(extract(epoch FROM now() - c.created_at))::bigint AS claim_age, m.id, m.ttl, floor(extract(epoch FROM now() - m.created_at))::bigint AS age, m.body, m.key_id, m.claim_count,
       m.message_group, m.traceparent, m.tracestate
FROM queues q
JOIN claims c ON c.queue_id = q.id AND c.id = $3 AND c.expires_at > now()
LEFT JOIN messages m ON m.queue_id = c.queue_id AND m.id = ANY(c.message_ids)
    AND m.claim_id = c.id AND m.expires_at > now()
WHERE q.project = $1 AND q.name = $2
ORDER BY m.id;

-- name: ClaimStore.LIVE
SELECT c.id, c.ttl, c.grace, floor(extract(epoch FROM now() - c.created_at))::bigint AS age, ceil(extract(epoch FROM c.expires_at - now()))::bigint AS remaining,
       cardinality(c.message_ids) AS messages
FROM queues q
JOIN claims c ON c.queue_id = q.id AND c.expires_at > now()
WHERE q.project = $1 AND q.name = $2
ORDER BY c.created_at, c.id
LIMIT $3;

-- name: ClaimStore.RELEASE
WITH c AS (
    UPDATE claims c SET expires_at = now()
    FROM queues q
    WHERE q.project = $1 AND q.name = $2 AND c.queue_id = q.id AND c.id = $3 AND c.expires_at > now()
    RETURNING c.queue_id, c.id, c.message_ids, q.wake_until),
freed AS (
    UPDATE messages m SET claim_expires_at = now()
    WHERE m.queue_id = (SELECT queue_id FROM c) AND m.id = ANY((SELECT message_ids FROM c)::bigint[])
      AND m.claim_id IS NOT DISTINCT FROM $3
    RETURNING m.id),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', $1::text, 'queue', $2::text,
                                               'messages', (SELECT count(*) FROM freed))::text)
    FROM c
    WHERE true AND c.wake_until > now() AND (SELECT count(*) FROM freed) > 0)
SELECT (SELECT count(*) FROM waiters_told) AS waiters_told;

-- name: ClaimStore.RELEASE_MESSAGES
WITH c AS (
    SELECT c.queue_id, q.wake_until
    FROM queues q JOIN claims c ON c.queue_id = q.id AND c.id = $3 AND c.expires_at > now()
    WHERE q.project = $1 AND q.name = $2),
released AS (
    UPDATE messages m
    SET claim_id = $5, claim_expires_at = now(),
        visible_at = CASE WHEN $6::integer > 0 THEN now() + $6::integer * interval '1 second'
                          ELSE m.visible_at END
    WHERE m.queue_id = (SELECT queue_id FROM c) AND m.id = ANY($4::bigint[])
      AND m.claim_id IS NOT DISTINCT FROM $3 AND m.claim_expires_at > now() AND m.expires_at > now()
    RETURNING m.id),
ended AS (
    INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
    SELECT $5, c.queue_id, 0, 0, now(), ARRAY(SELECT id FROM released ORDER BY id)
    FROM c
    WHERE EXISTS (SELECT 1 FROM released)),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', $1::text, 'queue', $2::text,
                                               'messages', CASE WHEN $6::integer = 0 THEN (SELECT count(*) FROM released) ELSE LEAST((SELECT count(*) FROM released), 1) END)::text)
    FROM c
    WHERE true AND c.wake_until > now() AND CASE WHEN $6::integer = 0 THEN (SELECT count(*) FROM released) ELSE LEAST((SELECT count(*) FROM released), 1) END > 0)
SELECT count(*) AS claims, (SELECT count(*) FROM waiters_told) AS waiters_told FROM c;

-- name: ClaimStore.RENEW
WITH c AS (
    UPDATE claims c
    SET ttl = $4, grace = COALESCE($5, c.grace), created_at = now(),
        expires_at = now() + $4::integer * interval '1 second'
    FROM queues q JOIN claims o ON o.queue_id = q.id AND o.id = $3
    WHERE q.project = $1 AND q.name = $2 AND c.queue_id = q.id AND c.id = $3 AND c.expires_at > now()
    RETURNING c.queue_id, c.id, c.message_ids, c.ttl, c.grace, c.expires_at, o.expires_at AS was_until,
              q.wake_until),
renewed AS (
    UPDATE messages m
    SET claim_expires_at = (SELECT expires_at FROM c),
        ttl = GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + (SELECT ttl + grace FROM c), $6)),
        expires_at = m.created_at + GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + (SELECT ttl + grace FROM c), $6)) * interval '1 second'
    WHERE m.queue_id = (SELECT queue_id FROM c) AND m.id = ANY((SELECT message_ids FROM c)::bigint[])
      AND m.claim_id IS NOT DISTINCT FROM $3 AND m.expires_at > now()
    RETURNING m.id),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', $1::text, 'queue', $2::text,
                                               'messages', 1)::text)
    FROM c
    WHERE c.expires_at < c.was_until AND c.wake_until > now() AND 1 > 0)
SELECT count(*) AS claims, (SELECT count(*) FROM waiters_told) AS waiters_told FROM c;

-- name: FifoClaimStore.CREATE
WITH q AS (SELECT id, CASE WHEN metadata->>'_dead_letter_queue' IS NOT NULL
     THEN (metadata->>'_max_claim_count')::int END AS max_claims, (metadata->>'_claim_wait_seconds')::int AS wait_default, metadata->>'_ordering' AS ordering
           FROM queues WHERE project = $1 AND name = $2),
asked AS (
    SELECT a.claim_index::int AS claim_index, a.claim_id, a.ttl, a.grace
    FROM unnest($3::uuid[], $5::int[], $6::int[]) WITH ORDINALITY AS a (claim_id, ttl, grace, claim_index)),
taken AS MATERIALIZED (
    SELECT f.claim_index, f.message_id AS id
    FROM (SELECT id, max_claims FROM q WHERE ordering = 'fifo') fq
    CROSS JOIN LATERAL pigeon_fifo_free_each(fq.id, $4::int[], fq.max_claims) f),
claimed AS (
    UPDATE messages m
    SET claim_id = a.claim_id,
        claim_expires_at = now() + a.ttl * interval '1 second',
        claim_count = m.claim_count + 1,
        first_claimed_at = COALESCE(m.first_claimed_at, now()),
        ttl = GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + a.ttl + a.grace, $7)),
        expires_at = m.created_at + GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + a.ttl + a.grace, $7)) * interval '1 second'
    FROM taken t
    JOIN asked a ON a.claim_index = t.claim_index
    CROSS JOIN q
    WHERE m.queue_id = q.id AND m.id = t.id
    RETURNING t.claim_index, m.id, m.ttl, m.created_at, m.body, m.key_id, m.claim_count, m.message_group,
              m.traceparent, m.tracestate),
recorded AS (
    INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
    SELECT a.claim_id, q.id, a.ttl, a.grace, now() + a.ttl * interval '1 second', h.ids
    FROM (SELECT claim_index, array_agg(id ORDER BY id) AS ids FROM claimed GROUP BY claim_index) h
    JOIN asked a ON a.claim_index = h.claim_index
    CROSS JOIN q)
SELECT q.id AS queue_id, a.claim_index, c.id, c.ttl, floor(extract(epoch FROM now() - c.created_at))::bigint AS age, c.body, c.key_id, c.claim_count,
       c.message_group, c.traceparent, c.tracestate, q.wait_default, q.ordering
FROM asked a
LEFT JOIN q ON true
LEFT JOIN claimed c ON c.claim_index = a.claim_index
ORDER BY a.claim_index, c.id;

-- name: GroupStore.BLOCKED
WITH RECURSIVE queue AS MATERIALIZED (SELECT id FROM queues WHERE project = $1 AND name = $2),
g (message_group) AS (
    (SELECT m.message_group FROM messages m
     WHERE m.queue_id = (SELECT id FROM queue) AND m.claim_id IS NOT NULL AND m.message_group IS NOT NULL
       AND m.claim_expires_at > now() AND m.expires_at > now()
     ORDER BY m.message_group LIMIT 1)
    UNION ALL
    SELECT (SELECT m.message_group FROM messages m
            WHERE m.queue_id = (SELECT id FROM queue) AND m.claim_id IS NOT NULL
              AND m.message_group > g.message_group
              AND m.claim_expires_at > now() AND m.expires_at > now()
            ORDER BY m.message_group LIMIT 1)
    FROM g WHERE g.message_group IS NOT NULL)
SELECT g.message_group, h.held, h.claim_id, h.remaining
FROM g
CROSS JOIN LATERAL (
    SELECT count(*) AS held, min(m.claim_id::text) AS claim_id,
           ceil(extract(epoch FROM min(m.claim_expires_at) - now()))::bigint AS remaining
    FROM messages m
    WHERE m.queue_id = (SELECT id FROM queue) AND m.message_group = g.message_group
      AND m.claim_id IS NOT NULL AND m.claim_expires_at > now() AND m.expires_at > now()) h
WHERE g.message_group IS NOT NULL
LIMIT $3;

-- name: GroupStore.WAITING
WITH RECURSIVE queue AS MATERIALIZED (SELECT id FROM queues WHERE project = $1 AND name = $2),
g (message_group) AS (
    SELECT LEAST(
    (SELECT m.message_group FROM messages m
 WHERE m.queue_id = (SELECT id FROM queue) AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.message_group IS NOT NULL
 ORDER BY m.message_group LIMIT 1),
    (SELECT m.message_group FROM messages m
 WHERE m.queue_id = (SELECT id FROM queue) AND m.visible_at IS NOT NULL AND m.message_group IS NOT NULL
 ORDER BY m.message_group LIMIT 1),
    (SELECT m.message_group FROM messages m
 WHERE m.queue_id = (SELECT id FROM queue) AND m.claim_id IS NOT NULL AND m.message_group IS NOT NULL
 ORDER BY m.message_group LIMIT 1))
    UNION ALL
    SELECT LEAST(
    (SELECT m.message_group FROM messages m
 WHERE m.queue_id = (SELECT id FROM queue) AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.message_group > g.message_group
 ORDER BY m.message_group LIMIT 1),
    (SELECT m.message_group FROM messages m
 WHERE m.queue_id = (SELECT id FROM queue) AND m.visible_at IS NOT NULL AND m.message_group > g.message_group
 ORDER BY m.message_group LIMIT 1),
    (SELECT m.message_group FROM messages m
 WHERE m.queue_id = (SELECT id FROM queue) AND m.claim_id IS NOT NULL AND m.message_group > g.message_group
 ORDER BY m.message_group LIMIT 1)) FROM g WHERE g.message_group IS NOT NULL)
SELECT g.message_group, o.id, floor(extract(epoch FROM now() - o.created_at))::bigint AS age,
       EXISTS (SELECT 1 FROM messages c
               WHERE c.queue_id = (SELECT id FROM queue) AND c.message_group = g.message_group
                 AND c.claim_id IS NOT NULL AND c.claim_expires_at > now() AND c.expires_at > now())
           AS blocked
FROM g
CROSS JOIN LATERAL (
    SELECT m.id, m.created_at FROM messages m
    WHERE m.queue_id = (SELECT id FROM queue)
      AND m.id = LEAST(
          (SELECT r.id FROM messages r
           WHERE r.queue_id = (SELECT id FROM queue) AND r.message_group = g.message_group
             AND r.claim_id IS NULL AND r.visible_at IS NULL AND r.expires_at > now()
           ORDER BY r.id LIMIT 1),
          (SELECT d.id FROM messages d
           WHERE d.queue_id = (SELECT id FROM queue) AND d.message_group = g.message_group
             AND d.visible_at IS NOT NULL AND d.visible_at <= now()
             AND (d.claim_id IS NULL OR d.claim_expires_at <= now()) AND d.expires_at > now()
           ORDER BY d.id LIMIT 1),
          (SELECT min(e.id) FROM messages e
           WHERE e.queue_id = (SELECT id FROM queue) AND e.message_group = g.message_group
             AND e.claim_id IS NOT NULL AND e.claim_expires_at <= now()
             AND (e.visible_at IS NULL OR e.visible_at <= now()) AND e.expires_at > now()))
    OFFSET 0) o
WHERE g.message_group IS NOT NULL
LIMIT $3;

-- name: SessionPoolingCheck.SESSION
SELECT pg_backend_pid();

-- name: SessionSettings.APPLY
SELECT set_config(name, setting, false) FROM unnest($1::text[], $2::text[]) AS s(name, setting);

-- name: CallMarker.SECRET_ROW
SELECT value FROM deployment_secrets WHERE name = 'call-marker';

-- name: DispatchStore.BURY
UPDATE dispatch_groups
SET lease_token = NULL, lease_until = NULL, next_fire_at = NULL, last_error = $3,
    state = 'dead', dead_at = now()
WHERE id = $1 AND lease_token = $2;

-- name: DispatchStore.CALL
INSERT INTO dispatch_groups (project, merge_key, method, target, mergeable, envelope, body, headers, fire_at,
                             item_bytes)
VALUES ($1, $2, $3, $4, false, 'single', $5, $6::text::json, now(),
        octet_length($5::text) + COALESCE(octet_length($6::text), 0))
RETURNING extract(epoch FROM fire_at)::float8 AS due_at;

-- name: DispatchStore.COMPLETE
SELECT dispatch_complete($1, $2, $3::bigint[], $4);

-- name: DispatchStore.DEFER
UPDATE dispatch_groups
SET lease_token = NULL, lease_until = NULL, next_fire_at = NULL, attempts = greatest(attempts - 1, 0),
    fire_at = now() + $3 * interval '1 millisecond'
WHERE id = $1 AND lease_token = $2;

-- name: DispatchStore.DELETE_GROUP
DELETE FROM dispatch_groups WHERE id = $1;

-- name: DispatchStore.DELETE_PATH
DELETE FROM dispatch_groups g WHERE g.project = $1 AND g.merge_key = $2 AND g.method = $3 AND g.target = $4 AND g.state = 'pending';

-- name: DispatchStore.DROP_DEAD
DELETE FROM dispatch_groups WHERE project = $1 AND id = $2 AND state = 'dead';

-- name: DispatchStore.ENQUEUE
WITH g AS (
    INSERT INTO dispatch_groups AS g (project, merge_key, method, target, mergeable, envelope, fire_at,
                                      items, item_bytes)
    SELECT $1, $2, $3, $4, $5, 'array', COALESCE(to_timestamp($6::float8), now()), 1, octet_length($8::text)
    WHERE (NOT EXISTS (SELECT 1 FROM quota_breaches b
                       WHERE b.project = $1 AND b.kind IN ('groups', 'items', 'bytes') AND b.queue_id = 0)
           OR pigeon_refuse('429', (SELECT CASE b.kind WHEN 'groups' THEN $11 WHEN 'items' THEN $12 ELSE $13 END
                                    FROM quota_breaches b
                                    WHERE b.project = $1 AND b.kind IN ('groups', 'items', 'bytes')
                                      AND b.queue_id = 0
                                    ORDER BY b.kind LIMIT 1)))
      AND ($6::float8 IS NULL OR to_timestamp($6::float8) <= now() + $14 * interval '1 second'
           OR pigeon_refuse('400', $15))
    ON CONFLICT (project, merge_key, method, target) WHERE mergeable AND state = 'pending'
    DO UPDATE SET
        fire_at = CASE WHEN g.lease_until > now() OR NOT ($7 OR g.overwrite) THEN g.fire_at
                       ELSE EXCLUDED.fire_at END,
        next_fire_at = CASE WHEN g.lease_until > now() AND ($7 OR g.overwrite) THEN EXCLUDED.fire_at
                            ELSE g.next_fire_at END,
        items = g.items + 1, item_bytes = g.item_bytes + EXCLUDED.item_bytes
    WHERE g.items < $16 OR pigeon_refuse('429', $17)
    RETURNING id, fire_at, next_fire_at, lease_until > now() AS in_flight),
item AS (
    INSERT INTO dispatch_items (group_id, body) SELECT id, $8 FROM g RETURNING id, group_id)
SELECT item.id AS item_id, item.group_id,
       extract(epoch FROM CASE WHEN g.in_flight THEN g.next_fire_at ELSE g.fire_at END)::float8 AS fire_at,
       extract(epoch FROM g.fire_at)::float8 AS due_at
FROM item JOIN g ON g.id = item.group_id
LEFT JOIN LATERAL (
    SELECT pg_notify('pigeon_dispatch', extract(epoch FROM g.fire_at)::text)
    WHERE $9 AND g.fire_at < now() + $10 * interval '1 millisecond') AS signal ON true;

-- name: DispatchStore.FIND_LIVE_TWIN
SELECT live.id FROM dispatch_groups dead
JOIN dispatch_groups live ON live.project = dead.project AND live.merge_key = dead.merge_key
     AND live.method = dead.method AND live.target = dead.target
     AND live.mergeable AND live.state = 'pending'
WHERE dead.project = $1 AND dead.id = $2 AND dead.state = 'dead'
FOR UPDATE;

-- name: DispatchStore.FIRE_NOW
UPDATE dispatch_groups
SET fire_at = CASE WHEN lease_until > now() THEN fire_at ELSE now() END,
    next_fire_at = CASE WHEN lease_until > now() THEN now() ELSE next_fire_at END
WHERE id = $1;

-- name: DispatchStore.LIST_DEAD
SELECT g.id, g.merge_key, g.method, g.target, g.attempts, g.last_error,
       extract(epoch FROM g.dead_at)::float8 AS dead_at, extract(epoch FROM g.created_at)::float8 AS created_at,
       CASE WHEN g.envelope = 'single' THEN 1
            ELSE (SELECT count(*) FROM dispatch_items i WHERE i.group_id = g.id) END AS items
FROM dispatch_groups g
WHERE g.project = $1 AND g.state = 'dead' AND g.id > $2
ORDER BY g.id
LIMIT $3;

-- name: DispatchStore.LIST_PENDING_BY_DUE
SELECT g.id, g.merge_key, g.method, g.target, g.attempts, g.last_error, g.items,
       extract(epoch FROM g.fire_at - now())::float8 AS due_in,
       coalesce(g.lease_until > now(), false) AS in_flight
FROM dispatch_groups g
WHERE g.project = $1 AND g.state = 'pending' AND g.envelope = 'array'
ORDER BY g.fire_at, g.id
LIMIT $2;

-- name: DispatchStore.MOVE_ITEMS
WITH moved AS (
    UPDATE dispatch_items SET group_id = $2 WHERE group_id = $1 RETURNING octet_length(body) AS size),
counted AS (SELECT count(*) AS items, COALESCE(sum(size), 0) AS bytes FROM moved)
UPDATE dispatch_groups g
SET items = g.items + c.items, item_bytes = g.item_bytes + c.bytes
FROM counted c
WHERE g.id = $2 AND (g.items + c.items <= $3 OR pigeon_refuse('429', $4));

-- name: DispatchStore.NEXT_DUE
SELECT extract(epoch FROM now())::float8 AS now, extract(epoch FROM min(fire_at))::float8 AS next_due
FROM dispatch_groups WHERE state = 'pending' AND project <> ALL($1::text[]);

-- name: DispatchStore.NOTIFY
SELECT pg_notify('pigeon_dispatch', '');

-- name: DispatchStore.RELEASE
UPDATE dispatch_groups
SET lease_token = NULL, lease_until = NULL, next_fire_at = NULL, last_error = $3,
    fire_at = now() + $4 * interval '1 millisecond'
WHERE id = $1 AND lease_token = $2;

-- name: DispatchStore.REQUEUE
UPDATE dispatch_groups
SET state = 'pending', dead_at = NULL, attempts = 0, overwrite = false, last_error = NULL,
    created_at = now(), fire_at = now()
WHERE project = $1 AND id = $2 AND state = 'dead' AND (items <= $3 OR pigeon_refuse('429', $4))
RETURNING id;

-- name: DispatchStore.SUBSCRIPTION_DELIVERED
UPDATE subscriptions SET last_delivered_at = now()
WHERE id = $1 AND project = $2
  AND (last_delivered_at IS NULL OR last_delivered_at < now() - interval '1 second');

-- name: DispatchStore.SUBSCRIPTION_FAILED
UPDATE subscriptions
SET failures = failures + 1, last_failed_at = now(), last_error = left($3, 300)
WHERE id = $1 AND project = $2;

-- name: DispatchStore.TAKE_DUE
WITH due AS MATERIALIZED (
    SELECT id, project, fire_at FROM dispatch_groups
    WHERE state = 'pending' AND fire_at <= now() AND project <> ALL($4::text[])
    ORDER BY fire_at
    LIMIT $1
    FOR UPDATE SKIP LOCKED),
chosen AS (
    SELECT d.id, d.fire_at FROM (
        SELECT due.id, due.fire_at, due.project,
               row_number() OVER (PARTITION BY due.project ORDER BY due.fire_at, due.id) AS n
        FROM due) d
    LEFT JOIN unnest($5::text[], $6::int[]) AS busy (project, calls) ON busy.project = d.project
    WHERE d.n + COALESCE(busy.calls, 0) <= $7)
UPDATE dispatch_groups g
SET lease_token = gen_random_uuid(), lease_until = now() + $2 * interval '1 millisecond',
    fire_at = now() + $2 * interval '1 millisecond', next_fire_at = NULL, overwrite = true,
    attempts = g.attempts + 1
FROM chosen
LEFT JOIN LATERAL (
    SELECT array_agg(s.id ORDER BY s.id) FILTER (WHERE s.taken) AS item_ids,
           array_agg(s.body ORDER BY s.id) FILTER (WHERE s.taken) AS bodies,
           COALESCE(bool_or(NOT s.taken), false) AS more
    FROM (SELECT x.id, x.body,
                 row_number() OVER w <= $3
                     AND (row_number() OVER w = 1 OR sum(octet_length(x.body)) OVER w <= $8) AS taken
          FROM (SELECT i.id, i.body FROM dispatch_items i WHERE i.group_id = chosen.id
                ORDER BY i.id LIMIT $3 + 1) x
          WINDOW w AS (ORDER BY x.id)) s) items ON true
WHERE g.id = chosen.id
RETURNING g.id, g.lease_token, g.project, g.merge_key, g.method, g.target, g.envelope, g.headers::text AS headers,
          g.retry_policy::text AS retry_policy, g.attempts, g.body AS single_body,
          g.sealed_body, g.sealed_key_id, g.traceparent,
          extract(epoch FROM now() - g.created_at)::float8 AS age,
          extract(epoch FROM now() - chosen.fire_at)::float8 AS lateness,
          items.item_ids, items.bodies, items.more;

-- name: DispatchStore.VIEW
WITH page AS (
    SELECT s.*, s.n > $6 OR (s.n > 1 AND s.upto > $7) AS beyond
    FROM (
        SELECT p.*, row_number() OVER w AS n, sum(p.size) OVER w AS upto
        FROM (
            SELECT g.id, g.attempts, g.last_error, COALESCE(g.lease_until > now(), false) AS in_flight,
                   extract(epoch FROM CASE WHEN g.lease_until > now() THEN COALESCE(g.next_fire_at, g.fire_at)
                                           ELSE g.fire_at END)::float8 AS fire_at,
                   i.id AS item_id, octet_length(i.body) AS size,
                   extract(epoch FROM i.created_at)::float8 AS item_created
            FROM dispatch_groups g JOIN dispatch_items i ON i.group_id = g.id
            WHERE g.project = $1 AND g.merge_key = $2 AND g.method = $3 AND g.target = $4 AND g.state = 'pending' AND i.id > $5
            ORDER BY i.id
            LIMIT $6 + 1) p
        WINDOW w AS (ORDER BY p.item_id)) s)
SELECT page.id, page.attempts, page.last_error, page.in_flight, page.fire_at, page.item_id,
       page.item_created, i.body, page.beyond
FROM page
LEFT JOIN dispatch_items i ON NOT page.beyond AND i.group_id = page.id AND i.id = page.item_id
WHERE NOT page.beyond OR page.n = (SELECT min(n) FROM page WHERE beyond)
ORDER BY page.item_id;

-- name: DatabaseProbe.PING
SELECT 1;

-- name: StorageHealth.OPERATIONS.claim_messages
UPDATE messages m SET claim_id = $2, claim_expires_at = now() + interval '60 seconds' WHERE m.queue_id = (SELECT id FROM queues WHERE project = '' AND name = $1) AND m.id = ANY(ARRAY(SELECT f.id FROM (
    SELECT u.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM queues WHERE project = '' AND name = $1) AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND (NULL::int IS NULL OR m.claim_count < NULL::int)
        ORDER BY m.id LIMIT 10
        FOR UPDATE OF m SKIP LOCKED) u
    UNION ALL
    SELECT d.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM queues WHERE project = '' AND name = $1) AND m.claim_id IS NULL AND m.visible_at IS NOT NULL
          AND m.visible_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND (NULL::int IS NULL OR m.claim_count < NULL::int)
        ORDER BY m.visible_at LIMIT 10
        FOR UPDATE OF m SKIP LOCKED) d
    UNION ALL
    SELECT r.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM queues WHERE project = '' AND name = $1) AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND (NULL::int IS NULL OR m.claim_count < NULL::int)
        ORDER BY m.claim_expires_at LIMIT 10
        FOR UPDATE OF m SKIP LOCKED) r
) f ORDER BY f.id LIMIT 10));

-- name: StorageHealth.OPERATIONS.create_queue
INSERT INTO queues (project, name) SELECT '', $1 WHERE $2::uuid IS NOT NULL;

-- name: StorageHealth.OPERATIONS.delete_messages
DELETE FROM messages m WHERE m.queue_id = (SELECT id FROM queues WHERE project = '' AND name = $1) AND m.claim_id = $2;

-- name: StorageHealth.OPERATIONS.delete_queue
DELETE FROM queues WHERE project = '' AND name = $1 AND $2::uuid IS NOT NULL;

-- name: StorageHealth.OPERATIONS.list_messages
SELECT m.id FROM messages m WHERE m.queue_id = (SELECT id FROM queues WHERE project = '' AND name = $1) AND $2::uuid IS NOT NULL ORDER BY m.id LIMIT 10;

-- name: StorageHealth.OPERATIONS.post_messages
INSERT INTO messages (queue_id, client_id, ttl, body, expires_at) SELECT id, $2, 60, '"probe"', now() + interval '60 seconds' FROM queues WHERE project = '' AND name = $1;

-- name: HotTableVacuum.VACUUM
VACUUM (ANALYZE, SKIP_LOCKED) messages, claims, dispatch_groups, dispatch_items;

-- name: Sweeper.BURY_OLD_PENDING_GROUPS
UPDATE dispatch_groups
SET state = 'dead', dead_at = now(), last_error = $3, lease_token = NULL, lease_until = NULL,
    next_fire_at = NULL
WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM dispatch_groups
    WHERE state = 'pending' AND created_at < now() - $2 * interval '1 second'
      AND (lease_until IS NULL OR lease_until <= now())
    LIMIT $1 FOR UPDATE SKIP LOCKED));

-- name: Sweeper.DELETE_EXPIRED_MESSAGES
DELETE FROM messages
WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM messages WHERE expires_at <= now()
    LIMIT $1 FOR UPDATE SKIP LOCKED));

-- name: Sweeper.DELETE_EXPIRED_POST_KEYS
DELETE FROM post_keys
WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM post_keys WHERE expires_at <= now()
    LIMIT $1 FOR UPDATE SKIP LOCKED));

-- name: Sweeper.DELETE_EXPIRED_POST_KEY_COUNTS
DELETE FROM post_key_counts
WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM post_key_counts WHERE counted_until <= now()
    LIMIT $1 FOR UPDATE SKIP LOCKED));

-- name: Sweeper.DELETE_EXPIRED_RECEIVE_ATTEMPTS
DELETE FROM sqs_receive_attempts
WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM sqs_receive_attempts WHERE expires_at <= now()
    LIMIT $1 FOR UPDATE SKIP LOCKED));

-- name: Sweeper.DELETE_EXPIRED_SET_ASIDE
DELETE FROM messages_set_aside
WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM messages_set_aside WHERE expires_at <= now()
    LIMIT $1 FOR UPDATE SKIP LOCKED));

-- name: Sweeper.DELETE_EXPIRED_SUBSCRIPTIONS
DELETE FROM subscriptions
WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM subscriptions WHERE expires_at <= now()
    LIMIT $1 FOR UPDATE SKIP LOCKED));

-- name: Sweeper.DELETE_FORGOTTEN_ENDED_SESSIONS
DELETE FROM console_ended_sessions
WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM console_ended_sessions WHERE forget_at <= now()
    LIMIT $1 FOR UPDATE SKIP LOCKED));

-- name: Sweeper.DELETE_LAPSED_SOCKET_SUBSCRIPTIONS
DELETE FROM subscriptions
WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM subscriptions WHERE socket_lease_until <= now()
    LIMIT $1 FOR UPDATE SKIP LOCKED));

-- name: Sweeper.DELETE_ROWS_OF_DROPPED_QUEUES
WITH chosen AS MATERIALIZED (
    SELECT queue_id FROM dropped_queues WHERE dropped_at <= now() - interval '5 minutes'
    LIMIT $1 FOR UPDATE SKIP LOCKED),
messages_gone AS (DELETE FROM messages WHERE queue_id = ANY(ARRAY(SELECT queue_id FROM chosen))),
claims_gone AS (DELETE FROM claims WHERE queue_id = ANY(ARRAY(SELECT queue_id FROM chosen))),
set_aside_gone AS (DELETE FROM messages_set_aside WHERE queue_id = ANY(ARRAY(SELECT queue_id FROM chosen)))
DELETE FROM dropped_queues WHERE queue_id = ANY(ARRAY(SELECT queue_id FROM chosen));

-- name: Sweeper.END_EXPIRED_CLAIMS
WITH ended AS (
    DELETE FROM claims
    WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM claims WHERE expires_at <= now()
        LIMIT $1 FOR UPDATE SKIP LOCKED))
    RETURNING queue_id, id, message_ids),
held AS (
    SELECT e.queue_id, e.id AS claim_id, h.message_id
    FROM ended e CROSS JOIN LATERAL unnest(e.message_ids) AS h (message_id)),
rules AS (
    SELECT q.id AS queue_id, q.project, q.name, q.metadata->>'_dead_letter_queue' AS dead_letter_queue,
           (q.metadata->>'_max_claim_count')::int AS max_claims,
           (q.metadata->>'_dead_letter_queue_messages_ttl')::int AS dead_letter_ttl
    FROM (SELECT DISTINCT queue_id FROM ended) e
    CROSS JOIN LATERAL (SELECT * FROM queues q WHERE q.id = e.queue_id LIMIT 1) q
    WHERE q.metadata->>'_dead_letter_queue' IS NOT NULL AND q.metadata->>'_max_claim_count' IS NOT NULL),
created AS (
    INSERT INTO queues (project, name)
    SELECT DISTINCT r.project, r.dead_letter_queue FROM rules r
    WHERE NOT EXISTS (SELECT 1 FROM queues d WHERE d.project = r.project AND d.name = r.dead_letter_queue)
    ORDER BY 1, 2
    ON CONFLICT (project, name) DO UPDATE SET name = EXCLUDED.name
    RETURNING id, project, name),
targets AS (
    SELECT r.queue_id, r.name, r.max_claims, r.dead_letter_ttl, COALESCE(c.id, d.id) AS dead_letter_queue_id
    FROM rules r
    LEFT JOIN created c ON c.project = r.project AND c.name = r.dead_letter_queue
    LEFT JOIN LATERAL (SELECT id FROM queues d WHERE d.project = r.project AND d.name = r.dead_letter_queue
                       LIMIT 1) d ON true),
settled AS MATERIALIZED (
    SELECT m.row, t.queue_id IS NOT NULL AND m.claim_count >= t.max_claims AND m.expires_at > now() AS dead
    FROM held h
    CROSS JOIN LATERAL (
        SELECT m.ctid AS row, m.claim_count, m.expires_at FROM messages m
        WHERE m.queue_id = h.queue_id AND m.id = h.message_id AND m.claim_id IS NOT DISTINCT FROM h.claim_id
        LIMIT 1) m
    LEFT JOIN targets t ON t.queue_id = h.queue_id),
moved AS (
    DELETE FROM messages m
    WHERE m.ctid = ANY(ARRAY(SELECT row FROM settled WHERE dead))
    RETURNING m.queue_id, m.id, m.client_id, m.body, m.key_id, m.ttl, m.sqs_attributes, m.message_group,
              m.traceparent, m.tracestate),
-- Each queue's total of messages moved out of it (/q/metrics/queues), in the statement that moves them:
-- counted exactly once, whatever replica sweeps. Rows are locked in queue order, as every flush locks them.
dead_letters_counted AS (
    INSERT INTO queue_counters AS c (queue_id, dead_lettered)
    SELECT queue_id, count(*) FROM moved GROUP BY queue_id ORDER BY queue_id
    ON CONFLICT (queue_id) DO UPDATE SET dead_lettered = c.dead_lettered + EXCLUDED.dead_lettered),
-- A sealed body moves sealed, for the queue it left: it waits invisible until it is sealed for its new
-- queue (RESEALING). Each records the queue it came from, where a redrive moves it back (migration V21),
-- and keeps its id, as SQS keeps a dead-lettered message's MessageId (a redrive keeps it too), and its group
-- (decision 0020: it left its group's order in the queue it came from; in the dead-letter queue it is in it
-- again, as SQS keeps a dead-lettered message's MessageGroupId), and its trace context (migration V35: a
-- consumer of the dead-letter queue can still find the trace that produced it).
dead_lettered AS (
    INSERT INTO messages (id, queue_id, client_id, ttl, body, key_id, expires_at, visible_at,
                          dead_letter_source, sqs_attributes, message_group, traceparent, tracestate)
    OVERRIDING SYSTEM VALUE
    SELECT m.id, t.dead_letter_queue_id, m.client_id, COALESCE(t.dead_letter_ttl, m.ttl), m.body, m.key_id,
           now() + COALESCE(t.dead_letter_ttl, m.ttl) * interval '1 second',
           CASE WHEN m.key_id IS NOT NULL THEN 'infinity'::timestamptz END, t.name, m.sqs_attributes,
           m.message_group, m.traceparent, m.tracestate
    FROM moved m JOIN targets t ON t.queue_id = m.queue_id
    ORDER BY m.id
    RETURNING id),
freed AS (
    UPDATE messages m SET claim_id = NULL, claim_expires_at = NULL
    WHERE m.ctid = ANY(ARRAY(SELECT row FROM settled WHERE NOT dead))
    RETURNING m.id)
SELECT (SELECT count(*) FROM ended) AS claims, (SELECT count(*) FROM dead_lettered) AS dead_lettered;

-- name: Sweeper.RESEALED
WITH resealed AS (
    UPDATE messages m SET body = r.body, key_id = r.key_id, sqs_attributes = r.attributes, visible_at = NULL
    FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[])
         AS r (queue_id, id, body, key_id, attributes)
    WHERE m.queue_id = r.queue_id AND m.id = r.id AND m.visible_at = 'infinity'
    RETURNING m.queue_id),
arrived AS (
    SELECT queue_id, count(*) AS messages FROM resealed GROUP BY queue_id),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', w.project::text, 'queue', w.name::text,
                                               'messages', a.messages)::text)
    FROM queues w JOIN arrived a ON a.queue_id = w.id
    WHERE true AND w.wake_until > now() AND a.messages > 0)
SELECT (SELECT count(*) FROM waiters_told) AS waiters_told;

-- name: Sweeper.RESEALING
SELECT m.queue_id, m.id, m.body, m.key_id, m.sqs_attributes, q.project, q.name
FROM messages m JOIN queues q ON q.id = m.queue_id
WHERE m.visible_at = 'infinity'
ORDER BY m.queue_id, m.id
LIMIT $1;

-- name: MessageStore.DELETE_BY_IDS
WITH q AS (SELECT id, wake_until, metadata->>'_ordering' AS ordering
           FROM queues WHERE project = $1 AND name = $2),
deleted AS (
    DELETE FROM messages m
    WHERE m.queue_id = (SELECT id FROM q) AND m.id = ANY($3::bigint[])
    RETURNING m.id, m.queue_id, m.message_group, m.message_group IS NOT NULL AND m.expires_at > now() AND ((m.claim_id IS NOT NULL AND m.claim_expires_at > now()) OR m.visible_at > now()) AS held_back),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', $1::text, 'queue', $2::text,
                                               'messages', (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = q.id AND u.held_back))::text)
    FROM q
    WHERE q.ordering = 'fifo' AND q.wake_until > now() AND (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = q.id AND u.held_back) > 0)
SELECT (SELECT count(*) FROM deleted) AS deleted, (SELECT count(*) FROM waiters_told) AS waiters_told;

-- name: MessageStore.DELETE_BY_IDS_SHARED
WITH q AS (
    SELECT q.id, r.ord, q.project, q.name, q.wake_until, q.metadata->>'_ordering' AS ordering
    FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r (project, name, ord)
    JOIN queues q ON q.project = r.project AND q.name = r.name),
named AS MATERIALIZED (
    SELECT q.ord AS queue_ord, q.id AS queue_id, d.id
    FROM q JOIN unnest($3::int[], $4::bigint[]) AS d (queue_ord, id) ON d.queue_ord = q.ord),
deleted AS (
    DELETE FROM messages m USING named n
    WHERE m.queue_id = n.queue_id AND m.id = n.id
    RETURNING n.queue_ord, m.id, m.queue_id, m.message_group, m.message_group IS NOT NULL AND m.expires_at > now() AND ((m.claim_id IS NOT NULL AND m.claim_expires_at > now()) OR m.visible_at > now()) AS held_back),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', q.project::text, 'queue', q.name::text,
                                               'messages', (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = q.id AND u.held_back))::text)
    FROM q
    WHERE q.ordering = 'fifo' AND q.wake_until > now() AND (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = q.id AND u.held_back) > 0)
SELECT d.queue_ord, d.id, (SELECT count(*) FROM waiters_told) AS waiters_told FROM deleted d;

-- name: MessageStore.DELETE_BY_IDS_WITH_CLAIMS
WITH target AS (
    SELECT m.queue_id, m.id, (m.claim_id IS NOT NULL AND m.claim_expires_at > now()) AND NOT (m.claim_id = ANY($4::uuid[])) AS refused, q.wake_until,
           q.metadata->>'_ordering' AS ordering
    FROM queues q JOIN messages m ON m.queue_id = q.id
    WHERE q.project = $1 AND q.name = $2 AND m.id = ANY($3::bigint[]) AND m.expires_at > now()
    FOR UPDATE OF m),
deleted AS (
    DELETE FROM messages d USING target t
    WHERE d.queue_id = t.queue_id AND d.id = t.id AND NOT EXISTS (SELECT 1 FROM target WHERE refused)
    RETURNING d.id, d.queue_id, d.message_group, d.message_group IS NOT NULL AND d.expires_at > now() AND ((d.claim_id IS NOT NULL AND d.claim_expires_at > now()) OR d.visible_at > now()) AS held_back),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', $1::text, 'queue', $2::text,
                                               'messages', (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = t.queue_id AND u.held_back))::text)
    FROM (SELECT * FROM target LIMIT 1) t
    WHERE t.ordering = 'fifo' AND t.wake_until > now() AND (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = t.queue_id AND u.held_back) > 0)
SELECT EXISTS (SELECT 1 FROM target WHERE refused) AS refused, (SELECT count(*) FROM deleted) AS deleted,
       (SELECT count(*) FROM waiters_told) AS waiters_told
;

-- name: MessageStore.DELETE_ONE
WITH target AS (
    SELECT m.queue_id, m.id, m.claim_id, (m.claim_id IS NOT NULL AND m.claim_expires_at > now()) AS claimed, q.wake_until, q.metadata->>'_ordering' AS ordering
    FROM queues q JOIN messages m ON m.queue_id = q.id
    WHERE q.project = $1 AND q.name = $2 AND m.id = $3 AND m.expires_at > now()
    FOR UPDATE OF m),
deleted AS (
    DELETE FROM messages d USING target t
    WHERE d.queue_id = t.queue_id AND d.id = t.id
      AND CASE WHEN $4::uuid IS NULL THEN NOT t.claimed ELSE t.claimed AND t.claim_id = $4::uuid END
    RETURNING d.id, d.queue_id, d.message_group, d.message_group IS NOT NULL AND d.expires_at > now() AND ((d.claim_id IS NOT NULL AND d.claim_expires_at > now()) OR d.visible_at > now()) AS held_back),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', $1::text, 'queue', $2::text,
                                               'messages', (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = t.queue_id AND u.held_back))::text)
    FROM target t
    WHERE t.ordering = 'fifo' AND t.wake_until > now() AND (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = t.queue_id AND u.held_back) > 0)
SELECT t.claimed, EXISTS (SELECT 1 FROM deleted) AS deleted, (SELECT count(*) FROM waiters_told) AS waiters_told
FROM target t;

-- name: MessageStore.GET_BY_IDS
SELECT m.id, m.ttl, floor(extract(epoch FROM now() - m.created_at))::bigint AS age, m.body, m.key_id, m.claim_count, m.message_group, m.traceparent,
       m.tracestate
FROM queues q JOIN messages m ON m.queue_id = q.id
WHERE q.project = $1 AND q.name = $2 AND m.id = ANY($3::bigint[]) AND m.expires_at > now()
ORDER BY m.id;

-- name: MessageStore.LIST
SELECT q.id AS queue_id, w.last_id AS window_last_id, w.size AS window_size,
       m.id, m.ttl, m.age, m.body, m.key_id, m.claim_count, m.message_group, m.traceparent, m.tracestate
FROM queues q
CROSS JOIN LATERAL (
    SELECT max(r.id) AS last_id, count(*) AS size
    FROM (SELECT m.id FROM messages m WHERE m.queue_id = q.id AND m.id > $3 ORDER BY m.id LIMIT $9) r) w
LEFT JOIN LATERAL (
    SELECT m.id, m.ttl, floor(extract(epoch FROM now() - m.created_at))::bigint AS age, m.body, m.key_id, m.claim_count, m.message_group, m.traceparent,
           m.tracestate
    FROM messages m
    WHERE m.queue_id = q.id AND m.id > $3 AND m.id <= w.last_id AND m.expires_at > now()
      AND ($5 OR m.client_id <> $4)
      AND ($6 OR NOT (m.claim_id IS NOT NULL AND m.claim_expires_at > now()))
      AND ($7 OR (m.visible_at IS NULL OR m.visible_at <= now()))
    ORDER BY m.id
    LIMIT $8) m ON true
WHERE q.project = $1 AND q.name = $2
ORDER BY m.id;

-- name: MessageStore.POP
WITH q AS (SELECT id, CASE WHEN metadata->>'_dead_letter_queue' IS NOT NULL
     THEN (metadata->>'_max_claim_count')::int END AS max_claims, COALESCE(metadata->>'_ordering', 'none') AS ordering
           FROM queues WHERE project = $1 AND name = $2)
DELETE FROM messages m
WHERE m.queue_id = (SELECT id FROM q)
  AND m.id = ANY(CASE (SELECT ordering FROM q) WHEN 'fifo' THEN (SELECT pigeon_fifo_free((SELECT id FROM q), $3, (SELECT max_claims FROM q)))::bigint[] WHEN 'fair' THEN ARRAY(
WITH turns AS (
SELECT l.id FROM messages l
WHERE l.queue_id = (SELECT id FROM q)
  AND l.id = ANY(ARRAY(
    WITH RECURSIVE g (message_group) AS (
        (SELECT m.message_group FROM messages m
         WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NULL AND m.visible_at IS NULL
           AND m.message_group IS NOT NULL
         ORDER BY m.message_group LIMIT 1)
        UNION ALL
        SELECT (SELECT m.message_group FROM messages m
                WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NULL AND m.visible_at IS NULL
                  AND m.message_group > g.message_group
                ORDER BY m.message_group LIMIT 1)
        FROM g WHERE g.message_group IS NOT NULL),
    candidates AS (
        SELECT h.id, h.message_group FROM g CROSS JOIN LATERAL (
            SELECT m.id, m.message_group FROM messages m
            WHERE m.queue_id = (SELECT id FROM q) AND m.message_group = g.message_group
              AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
            ORDER BY m.id LIMIT $3) h
        UNION
        (SELECT f.id, f.message_group FROM (
    SELECT u.id, u.message_group FROM (
        SELECT m.id, m.message_group FROM messages m
        WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.id LIMIT $3
        ) u
    UNION ALL
    SELECT d.id, d.message_group FROM (
        SELECT m.id, m.message_group FROM messages m
        WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NULL AND m.visible_at IS NOT NULL
          AND m.visible_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.visible_at LIMIT $3
        ) d
    UNION ALL
    SELECT r.id, r.message_group FROM (
        SELECT m.id, m.message_group FROM messages m
        WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.claim_expires_at LIMIT $3
        ) r
) f ORDER BY f.id LIMIT $3))
    SELECT t.id FROM (
        SELECT c.id, row_number() OVER (
                   PARTITION BY COALESCE(c.message_group, c.id::text) ORDER BY c.id) AS turn
        FROM candidates c) t
    ORDER BY t.turn, t.id
    LIMIT $3))
  AND (l.claim_id IS NULL OR l.claim_expires_at <= now())
  AND l.expires_at > now() AND (l.visible_at IS NULL OR l.visible_at <= now())
FOR UPDATE OF l SKIP LOCKED),
filled AS (SELECT f.id FROM (
    SELECT u.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.id LIMIT ($3 - (SELECT count(*) FROM turns))
        FOR UPDATE OF m SKIP LOCKED) u
    UNION ALL
    SELECT d.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NULL AND m.visible_at IS NOT NULL
          AND m.visible_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.visible_at LIMIT ($3 - (SELECT count(*) FROM turns))
        FOR UPDATE OF m SKIP LOCKED) d
    UNION ALL
    SELECT r.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.claim_expires_at LIMIT ($3 - (SELECT count(*) FROM turns))
        FOR UPDATE OF m SKIP LOCKED) r
) f ORDER BY f.id LIMIT ($3 - (SELECT count(*) FROM turns)))
SELECT id FROM turns
UNION
SELECT id FROM filled) ELSE ARRAY(SELECT f.id FROM (
    SELECT u.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NULL AND m.visible_at IS NULL AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.id LIMIT $3
        FOR UPDATE OF m SKIP LOCKED) u
    UNION ALL
    SELECT d.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NULL AND m.visible_at IS NOT NULL
          AND m.visible_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.visible_at LIMIT $3
        FOR UPDATE OF m SKIP LOCKED) d
    UNION ALL
    SELECT r.id FROM (
        SELECT m.id FROM messages m
        WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now() AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now()) AND ((SELECT max_claims FROM q) IS NULL OR m.claim_count < (SELECT max_claims FROM q))
        ORDER BY m.claim_expires_at LIMIT $3
        FOR UPDATE OF m SKIP LOCKED) r
) f ORDER BY f.id LIMIT $3) END)
RETURNING m.id, m.ttl, floor(extract(epoch FROM now() - m.created_at))::bigint AS age, m.body, m.key_id, m.queue_id, m.client_id, m.created_at, m.expires_at,
          m.claim_count + 1 AS claim_count, m.message_group, m.traceparent, m.tracestate;

-- name: MessageStore.POST
WITH inserted AS (
    INSERT INTO messages (queue_id, client_id, ttl, body, expires_at, key_id, traceparent, tracestate)
    SELECT q.id, $3, t.ttl, t.body, now() + t.ttl * interval '1 second', $11, t.traceparent, t.tracestate
    FROM queues q,
         unnest($4::int[], $5::text[], $15::text[], $16::text[])
             WITH ORDINALITY AS t (ttl, body, traceparent, tracestate, ord)
    WHERE q.project = $1 AND q.name = $2 AND (NOT EXISTS (SELECT 1 FROM quota_breaches b WHERE b.project = $1 AND b.kind = 'messages' AND b.queue_id = q.id)
 OR pigeon_refuse('429', $6)) AND (COALESCE((q.metadata->'_enable_encrypt_messages')::jsonb = 'true'::jsonb, false) = ($11::text IS NOT NULL)
 OR pigeon_refuse('ENC', 'the queue asks for its messages to be sealed, or no longer does'))
AND (NOT COALESCE((q.metadata->'_content_based_deduplication')::jsonb = 'true'::jsonb, false)
     OR current_setting('pigeon.deduplicating', true) = 'on'
     OR pigeon_refuse('DDP', 'the queue deduplicates its messages by content'))
    ORDER BY t.ord
    RETURNING id, ttl, body, visible_at, key_id, traceparent),
subscribed AS MATERIALIZED (
    SELECT p.*, COALESCE(octet_length(p.headers::text), 0) + octet_length(p.retry_policy::text) AS own_bytes
    FROM (SELECT s.id AS subscription_id, s.subscriber,
               CASE WHEN json_typeof(s.options->'post_data') = 'string'
                         AND s.subscriber !~* '^mailto:' THEN s.options->>'post_data' END AS template,
               CASE WHEN s.subscriber ~* '^mailto:'
                    THEN json_build_object('subject', s.options->'subject', 'from', s.options->'from')
                    ELSE s.options->'post_headers' END AS headers,
               json_build_object('queue', (SELECT metadata FROM queues WHERE project = $1 AND name = $2)->'_retry_policy', 'subscription', s.options->'_retry_policy')
                   AS retry_policy
        FROM subscriptions s
        WHERE s.project = $1 AND s.source = $2 AND s.expires_at > now()
          AND (s.subscriber ~* '^https?:' AND (s.confirmed OR NOT $10::boolean)
               OR $14::int > 0 AND s.subscriber ~* '^mailto:' AND (s.confirmed OR $14::int = 1))
          AND s.socket_lease_until IS NULL
          AND NOT $12::boolean AND EXISTS (SELECT 1 FROM inserted)) p),
fan AS MATERIALIZED (
    SELECT s.subscription_id, s.subscriber, s.template, s.headers, s.retry_policy, s.own_bytes,
           i.ttl, i.body, i.key_id, i.visible_at, i.traceparent
    FROM inserted i CROSS JOIN subscribed s),
fan_groups AS (
    INSERT INTO dispatch_groups (project, merge_key, method, target, mergeable, envelope, body,
                                 headers, retry_policy, fire_at, sealed_body, sealed_key_id, item_bytes,
                                 traceparent)
    SELECT $1, '-subscription:' || f.subscription_id, 'POST', f.subscriber, false, 'single', c.body,
           f.headers, f.retry_policy,
           COALESCE(f.visible_at, now()),
           c.sealed, f.key_id,
           octet_length(c.body) + COALESCE(octet_length(c.sealed), 0) + f.own_bytes, f.traceparent
    FROM fan f
    CROSS JOIN LATERAL (
        SELECT json_build_object('body', CASE WHEN f.key_id IS NULL THEN f.body::json ELSE to_json(f.body) END,
                                 'ttl', f.ttl, 'queue_name', ltrim($2::text, '~'),
                                 'Message_Type', 'Notification')::text AS doc) n
    CROSS JOIN LATERAL (
        SELECT CASE WHEN f.template IS NOT NULL THEN replace(f.template, '"$zaqar_message$"', n.doc)
                    ELSE n.doc END AS body,
               CASE WHEN f.key_id IS NOT NULL THEN f.body END AS sealed) c),
sockets_told AS (
    SELECT pg_notify('pigeon_socket_posts', json_build_object('project', $1::text, 'queue', $2::text,
                                               'ids', array_agg(c.id ORDER BY c.id))::text)
    FROM (SELECT id, (row_number() OVER (ORDER BY id) - 1) / 300 AS notice FROM inserted) c
    WHERE EXISTS (SELECT 1 FROM subscriptions s
                  WHERE s.project = $1 AND s.source = $2 AND s.socket_lease_until > now()
                    AND s.expires_at > now())
    GROUP BY c.notice),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', $1::text, 'queue', $2::text,
                                               'messages', (SELECT count(*) FROM inserted))::text)
    FROM queues w
    WHERE w.project = $1 AND w.name = $2 AND w.wake_until > now() AND (SELECT count(*) FROM inserted) > 0)
SELECT id, (SELECT count(*) FROM fan) AS notifications, (SELECT count(*) FROM sockets_told) AS sockets_told, (SELECT count(*) FROM waiters_told) AS waiters_told FROM inserted WHERE ((SELECT count(*) FROM fan) <= $7 OR pigeon_refuse('429', $8))
AND ((SELECT count(*) FROM fan) = 0 OR NOT EXISTS (
         SELECT 1 FROM quota_breaches b
         WHERE b.project = $1 AND b.kind IN ('groups', 'bytes') AND b.queue_id = 0)
     OR pigeon_refuse('429', (SELECT CASE b.kind WHEN 'groups' THEN $9 ELSE $13 END
                              FROM quota_breaches b
                              WHERE b.project = $1 AND b.kind IN ('groups', 'bytes') AND b.queue_id = 0
                              ORDER BY b.kind DESC LIMIT 1)));

-- name: MessageStore.POST_CREATING_QUEUE
WITH known AS (
    SELECT id, metadata, wake_until FROM queues WHERE project = $1 AND name = $2),
created AS (
    INSERT INTO queues (project, name) SELECT $1, $2 WHERE $22 AND NOT EXISTS (SELECT 1 FROM known)
    ON CONFLICT (project, name) DO NOTHING
    RETURNING id, metadata),
q AS (
    SELECT id, metadata FROM known
    UNION ALL
    SELECT id, metadata FROM created
    LIMIT 1),
target AS (
    SELECT id,
           COALESCE((metadata->>'_max_messages_post_size')::int, $7) AS max_size,
           COALESCE((metadata->>'_default_message_ttl')::int, $8) AS default_ttl,
           COALESCE((metadata->>'_default_message_delay')::int, 0) AS default_delay
    FROM q
    WHERE (NOT EXISTS (SELECT 1 FROM quota_breaches b WHERE b.project = $1 AND b.kind = 'messages' AND b.queue_id = q.id)
 OR pigeon_refuse('429', $12)) AND (COALESCE((metadata->'_enable_encrypt_messages')::jsonb = 'true'::jsonb, false) = ($17::text IS NOT NULL)
 OR pigeon_refuse('ENC', 'the queue asks for its messages to be sealed, or no longer does'))
AND (NOT COALESCE((metadata->'_content_based_deduplication')::jsonb = 'true'::jsonb, false)
     OR current_setting('pigeon.deduplicating', true) = 'on'
     OR pigeon_refuse('DDP', 'the queue deduplicates its messages by content'))),
inserted AS (
    INSERT INTO messages (queue_id, client_id, ttl, body, expires_at, visible_at, key_id, sqs_attributes,
                          message_group, traceparent, tracestate)
    SELECT t.id, $3, COALESCE(n.ttl, t.default_ttl), n.body,
           now() + COALESCE(n.ttl, t.default_ttl) * interval '1 second',
           CASE WHEN COALESCE(n.delay, t.default_delay) > 0
                THEN now() + COALESCE(n.delay, t.default_delay) * interval '1 second' END,
           $17, n.attributes, n.message_group, n.traceparent, n.tracestate
    FROM target t, unnest($4::int[], $5::int[], $6::text[], $21::text[], $23::text[], $24::text[],
                          $25::text[])
                       WITH ORDINALITY AS n (ttl, delay, body, attributes, message_group, traceparent,
                                             tracestate, ord)
    WHERE $9 <= t.max_size
    ORDER BY n.ord
    RETURNING id, ttl, body, visible_at, key_id, traceparent),
subscribed AS MATERIALIZED (
    SELECT p.*, COALESCE(octet_length(p.headers::text), 0) + octet_length(p.retry_policy::text) AS own_bytes
    FROM (SELECT s.id AS subscription_id, s.subscriber,
               CASE WHEN json_typeof(s.options->'post_data') = 'string'
                         AND s.subscriber !~* '^mailto:' THEN s.options->>'post_data' END AS template,
               CASE WHEN s.subscriber ~* '^mailto:'
                    THEN json_build_object('subject', s.options->'subject', 'from', s.options->'from')
                    ELSE s.options->'post_headers' END AS headers,
               json_build_object('queue', (SELECT metadata FROM q)->'_retry_policy', 'subscription', s.options->'_retry_policy')
                   AS retry_policy
        FROM subscriptions s
        WHERE s.project = $1 AND s.source = $2 AND s.expires_at > now()
          AND (s.subscriber ~* '^https?:' AND (s.confirmed OR NOT $16::boolean)
               OR $20::int > 0 AND s.subscriber ~* '^mailto:' AND (s.confirmed OR $20::int = 1))
          AND s.socket_lease_until IS NULL
          AND NOT $18::boolean AND EXISTS (SELECT 1 FROM inserted)) p),
fan AS MATERIALIZED (
    SELECT s.subscription_id, s.subscriber, s.template, s.headers, s.retry_policy, s.own_bytes,
           i.ttl, i.body, i.key_id, i.visible_at, i.traceparent
    FROM inserted i CROSS JOIN subscribed s),
fan_groups AS (
    INSERT INTO dispatch_groups (project, merge_key, method, target, mergeable, envelope, body,
                                 headers, retry_policy, fire_at, sealed_body, sealed_key_id, item_bytes,
                                 traceparent)
    SELECT $1, '-subscription:' || f.subscription_id, 'POST', f.subscriber, false, 'single', c.body,
           f.headers, f.retry_policy,
           COALESCE(f.visible_at, now()),
           c.sealed, f.key_id,
           octet_length(c.body) + COALESCE(octet_length(c.sealed), 0) + f.own_bytes, f.traceparent
    FROM fan f
    CROSS JOIN LATERAL (
        SELECT json_build_object('body', CASE WHEN f.key_id IS NULL THEN f.body::json ELSE to_json(f.body) END,
                                 'ttl', f.ttl, 'queue_name', ltrim($2::text, '~'),
                                 'Message_Type', 'Notification')::text AS doc) n
    CROSS JOIN LATERAL (
        SELECT CASE WHEN f.template IS NOT NULL THEN replace(f.template, '"$zaqar_message$"', n.doc)
                    ELSE n.doc END AS body,
               CASE WHEN f.key_id IS NOT NULL THEN f.body END AS sealed) c),
sockets_told AS (
    SELECT pg_notify('pigeon_socket_posts', json_build_object('project', $1::text, 'queue', $2::text,
                                               'ids', array_agg(c.id ORDER BY c.id))::text)
    FROM (SELECT id, (row_number() OVER (ORDER BY id) - 1) / 300 AS notice FROM inserted) c
    WHERE EXISTS (SELECT 1 FROM subscriptions s
                  WHERE s.project = $1 AND s.source = $2 AND s.socket_lease_until > now()
                    AND s.expires_at > now())
    GROUP BY c.notice),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', $1::text, 'queue', $2::text,
                                               'messages', (SELECT count(*) FROM inserted))::text)
    FROM known k
    WHERE true AND k.wake_until > now() AND (SELECT count(*) FROM inserted) > 0)
SELECT (SELECT max_size FROM target) AS max_size, ARRAY(SELECT id FROM inserted ORDER BY id) AS ids,
       (SELECT count(*) FROM fan) AS notifications, (SELECT count(*) FROM sockets_told) AS sockets_told, (SELECT count(*) FROM waiters_told) AS waiters_told
WHERE (NOT EXISTS (SELECT 1 FROM created) OR (SELECT count(*) FROM queues WHERE project = $1) < $10
       OR pigeon_refuse('403', $11))
  AND ((SELECT count(*) FROM fan) <= $13 OR pigeon_refuse('429', $14))
AND ((SELECT count(*) FROM fan) = 0 OR NOT EXISTS (
         SELECT 1 FROM quota_breaches b
         WHERE b.project = $1 AND b.kind IN ('groups', 'bytes') AND b.queue_id = 0)
     OR pigeon_refuse('429', (SELECT CASE b.kind WHEN 'groups' THEN $15 ELSE $19 END
                              FROM quota_breaches b
                              WHERE b.project = $1 AND b.kind IN ('groups', 'bytes') AND b.queue_id = 0
                              ORDER BY b.kind DESC LIMIT 1)));

-- name: MessageStore.POST_CREATING_QUEUES
WITH post AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[], $4::int[], $5::text[], $23::boolean[])
                  WITH ORDINALITY AS p (project, name, client_id, document_size, key_id, creates, post)),
wanted AS (
    SELECT project, name, bool_or(creates) AS creates FROM post GROUP BY project, name),
known AS (
    SELECT w.project, w.name, k.id, k.metadata, k.wake_until
    FROM wanted w
    CROSS JOIN LATERAL (SELECT id, metadata, wake_until FROM queues WHERE project = w.project AND name = w.name
                        LIMIT 1) k),
created AS (
    INSERT INTO queues (project, name)
    SELECT w.project, w.name FROM wanted w
    WHERE w.creates AND NOT EXISTS (SELECT 1 FROM known k WHERE k.project = w.project AND k.name = w.name)
    ORDER BY w.project, w.name
    ON CONFLICT (project, name) DO NOTHING
    RETURNING id, metadata, project, name),
q AS (
    SELECT project, name, id, metadata FROM known
    UNION ALL
    SELECT project COLLATE "default", name COLLATE "default", id, metadata FROM created),
target AS (
    SELECT project, name, id, metadata,
           COALESCE((metadata->>'_max_messages_post_size')::int, $10) AS max_size,
           COALESCE((metadata->>'_default_message_ttl')::int, $11) AS default_ttl,
           COALESCE((metadata->>'_default_message_delay')::int, 0) AS default_delay
    FROM q
    WHERE (NOT EXISTS (SELECT 1 FROM quota_breaches b WHERE b.project = q.project AND b.kind = 'messages' AND b.queue_id = q.id)
 OR pigeon_refuse('429', $14))),
routed AS (
    SELECT p.post, p.client_id, p.key_id, p.document_size <= t.max_size AS fits,
           t.id, t.max_size, t.default_ttl, t.default_delay
    FROM post p JOIN target t ON t.project = p.project AND t.name = p.name
    WHERE (COALESCE((t.metadata->'_enable_encrypt_messages')::jsonb = 'true'::jsonb, false) = (p.key_id::text IS NOT NULL)
 OR pigeon_refuse('ENC', 'the queue asks for its messages to be sealed, or no longer does'))
AND (NOT COALESCE((t.metadata->'_content_based_deduplication')::jsonb = 'true'::jsonb, false)
     OR current_setting('pigeon.deduplicating', true) = 'on'
     OR pigeon_refuse('DDP', 'the queue deduplicates its messages by content'))),
inserted AS (
    INSERT INTO messages (queue_id, client_id, ttl, body, expires_at, visible_at, key_id, sqs_attributes,
                          message_group, traceparent, tracestate)
    SELECT r.id, r.client_id, COALESCE(n.ttl, r.default_ttl), n.body,
           now() + COALESCE(n.ttl, r.default_ttl) * interval '1 second',
           CASE WHEN COALESCE(n.delay, r.default_delay) > 0
                THEN now() + COALESCE(n.delay, r.default_delay) * interval '1 second' END,
           r.key_id, n.attributes, n.message_group, n.traceparent, n.tracestate
    FROM routed r
    JOIN unnest($6::int[], $7::int[], $8::int[], $9::text[], $22::text[], $24::text[], $25::text[],
                $26::text[])
         WITH ORDINALITY AS n (post, ttl, delay, body, attributes, message_group, traceparent, tracestate,
                               ord)
      ON n.post = r.post
    WHERE r.fits
    ORDER BY n.ord
    RETURNING id, queue_id, ttl, body, visible_at, key_id, traceparent),
stored_posts AS (
    SELECT r.id AS queue_id, count(*) AS messages
    FROM routed r JOIN unnest($6::int[]) AS n (post) ON n.post = r.post
    WHERE r.fits
    GROUP BY r.post, r.id),
subscribed AS MATERIALIZED (
    SELECT p.*, COALESCE(octet_length(p.headers::text), 0) + octet_length(p.retry_policy::text) AS own_bytes
    FROM (SELECT t.id AS queue_id, t.project, ltrim(t.name, '~') AS queue_name, s.id AS subscription_id, s.subscriber,
               CASE WHEN json_typeof(s.options->'post_data') = 'string'
                         AND s.subscriber !~* '^mailto:' THEN s.options->>'post_data' END AS template,
               CASE WHEN s.subscriber ~* '^mailto:'
                    THEN json_build_object('subject', s.options->'subject', 'from', s.options->'from')
                    ELSE s.options->'post_headers' END AS headers,
               json_build_object('queue', t.metadata->'_retry_policy', 'subscription', s.options->'_retry_policy')
                   AS retry_policy
        FROM target t JOIN subscriptions s ON s.project = t.project AND s.source = t.name
        WHERE s.expires_at > now()
          AND (s.subscriber ~* '^https?:' AND (s.confirmed OR NOT $18::boolean)
               OR $21::int > 0 AND s.subscriber ~* '^mailto:' AND (s.confirmed OR $21::int = 1))
          AND s.socket_lease_until IS NULL
          AND NOT $19::boolean AND EXISTS (SELECT 1 FROM inserted)) p),
fan AS MATERIALIZED (
    SELECT s.project, s.queue_name, s.subscription_id, s.subscriber, s.template, s.headers, s.retry_policy, s.own_bytes,
           i.ttl, i.body, i.key_id, i.visible_at, i.traceparent
    FROM inserted i JOIN subscribed s ON s.queue_id = i.queue_id),
fan_groups AS (
    INSERT INTO dispatch_groups (project, merge_key, method, target, mergeable, envelope, body,
                                 headers, retry_policy, fire_at, sealed_body, sealed_key_id, item_bytes,
                                 traceparent)
    SELECT f.project, '-subscription:' || f.subscription_id, 'POST', f.subscriber, false, 'single', c.body,
           f.headers, f.retry_policy,
           COALESCE(f.visible_at, now()),
           c.sealed, f.key_id,
           octet_length(c.body) + COALESCE(octet_length(c.sealed), 0) + f.own_bytes, f.traceparent
    FROM fan f
    CROSS JOIN LATERAL (
        SELECT json_build_object('body', CASE WHEN f.key_id IS NULL THEN f.body::json ELSE to_json(f.body) END,
                                 'ttl', f.ttl, 'queue_name', f.queue_name,
                                 'Message_Type', 'Notification')::text AS doc) n
    CROSS JOIN LATERAL (
        SELECT CASE WHEN f.template IS NOT NULL THEN replace(f.template, '"$zaqar_message$"', n.doc)
                    ELSE n.doc END AS body,
               CASE WHEN f.key_id IS NOT NULL THEN f.body END AS sealed) c),
sockets_told AS (
    SELECT pg_notify('pigeon_socket_posts', json_build_object('project', c.project, 'queue', c.name,
                                               'ids', array_agg(c.id ORDER BY c.id))::text)
    FROM (SELECT t.project, t.name, i.id,
                 (row_number() OVER (PARTITION BY i.queue_id ORDER BY i.id) - 1) / 300 AS notice
          FROM target t JOIN inserted i ON i.queue_id = t.id
          WHERE EXISTS (SELECT 1 FROM subscriptions s
                        WHERE s.project = t.project AND s.source = t.name AND s.socket_lease_until > now()
                          AND s.expires_at > now())) c
    GROUP BY c.project, c.name, c.notice),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', k.project::text, 'queue', k.name::text,
                                               'messages', s.messages)::text)
    FROM known k JOIN (SELECT queue_id, sum(messages) AS messages FROM stored_posts GROUP BY queue_id) s ON s.queue_id = k.id
    WHERE true AND k.wake_until > now() AND s.messages > 0)
SELECT ARRAY(SELECT r.max_size FROM post p LEFT JOIN routed r ON r.post = p.post ORDER BY p.post) AS max_sizes,
       ARRAY(SELECT id FROM inserted ORDER BY id) AS ids,
       (SELECT count(*) FROM fan) AS notifications, (SELECT count(*) FROM sockets_told) AS sockets_told, (SELECT count(*) FROM waiters_told) AS waiters_told
WHERE (NOT EXISTS (SELECT 1 FROM created)
       OR NOT EXISTS (SELECT 1 FROM (SELECT project, count(*) AS queues FROM created GROUP BY project) c
                      WHERE (SELECT count(*) FROM queues WHERE project = c.project) + c.queues > $12)
       OR pigeon_refuse('403', $13))
  AND (NOT EXISTS (SELECT 1 FROM subscribed) OR NOT EXISTS (
     SELECT 1 FROM stored_posts p
     WHERE p.messages * (SELECT count(*) FROM subscribed s WHERE s.queue_id = p.queue_id) > $15)
 OR pigeon_refuse('429', $16))
AND (NOT EXISTS (SELECT 1 FROM fan) OR NOT EXISTS (
         SELECT 1 FROM quota_breaches b
         WHERE b.project = ANY(ARRAY(SELECT DISTINCT project FROM fan)) AND b.kind IN ('groups', 'bytes')
           AND b.queue_id = 0)
     OR pigeon_refuse('429', (SELECT CASE b.kind WHEN 'groups' THEN $17 ELSE $20 END
                              FROM quota_breaches b
                              WHERE b.project = ANY(ARRAY(SELECT DISTINCT project FROM fan))
                                AND b.kind IN ('groups', 'bytes') AND b.queue_id = 0
                              ORDER BY b.kind DESC LIMIT 1)));

-- name: MessageStore.PURGE
WITH q AS (SELECT id FROM queues WHERE project = $1 AND name = $2),
messages_gone AS (DELETE FROM messages WHERE queue_id = ANY(ARRAY(SELECT id FROM q)) RETURNING 1),
claims_gone AS (DELETE FROM claims WHERE queue_id = ANY(ARRAY(SELECT id FROM q))),
set_aside_gone AS (DELETE FROM messages_set_aside WHERE queue_id = ANY(ARRAY(SELECT id FROM q)))
SELECT count(*) AS purged FROM messages_gone;

-- name: MessageStore.STATS
SELECT h.total AS head_total, h.claimed AS head_claimed, h.delayed AS head_delayed, h.last_id AS head_last_id,
       c.claimed AS claimed,
       o.id AS oldest_id, o.age AS oldest_age, o.created_at AS oldest_created,
       n.id AS newest_id, n.age AS newest_age, n.created_at AS newest_created
FROM queues q
CROSS JOIN LATERAL (
    SELECT count(*) AS total, count(*) FILTER (WHERE head.claimed) AS claimed,
           count(*) FILTER (WHERE NOT head.claimed AND NOT head.visible) AS delayed, max(head.id) AS last_id
    FROM (SELECT m.id, (m.claim_id IS NOT NULL AND m.claim_expires_at > now()) AS claimed,
                 (m.visible_at IS NULL OR m.visible_at <= now()) AS visible
          FROM messages m
          WHERE m.queue_id = q.id AND m.expires_at > now() ORDER BY m.id LIMIT $3) head) h
CROSS JOIN LATERAL (
    SELECT count(*) AS claimed
    FROM (SELECT 1 FROM messages m
          WHERE m.queue_id = q.id AND m.claim_id IS NOT NULL AND m.claim_expires_at > now()
            AND m.expires_at > now() LIMIT $3) held) c
LEFT JOIN LATERAL (
    SELECT m.id, floor(extract(epoch FROM now() - m.created_at))::bigint AS age, m.created_at FROM messages m
    WHERE m.queue_id = q.id AND m.expires_at > now() ORDER BY m.id LIMIT 1) o ON true
LEFT JOIN LATERAL (
    SELECT m.id, floor(extract(epoch FROM now() - m.created_at))::bigint AS age, m.created_at FROM messages m
    WHERE m.queue_id = q.id AND m.expires_at > now() ORDER BY m.id DESC LIMIT 1) n ON true
WHERE q.project = $1 AND q.name = $2;

-- name: PostKeyStore.LOCK_PROJECT
SELECT pg_advisory_xact_lock(hashtextextended('pigeon.post-keys:' || $1, 0));

-- name: PostKeyStore.REMEMBER
WITH remembered AS (
    UPDATE post_keys p
    SET message_ids = CASE WHEN p.kind = 'key' THEN $5::bigint[] ELSE ARRAY[r.id] END
    FROM unnest($3::text[], $4::text[], $6::bigint[]) AS r (kind, key, id)
    WHERE p.project = $1 AND p.queue = $2 AND p.kind = r.kind AND p.key = r.key AND p.message_ids IS NULL
    RETURNING p.expires_at),
held AS (
    SELECT COALESCE(sum(keys), 0) AS keys FROM post_key_counts WHERE project = $1 AND counted_until > now()),
counted AS (
    INSERT INTO post_key_counts AS c (project, counted_until, keys)
    SELECT $1, date_trunc('minute', max(expires_at)) + interval '1 minute', count(*) FROM remembered
    HAVING count(*) > 0
    ON CONFLICT (project, counted_until) DO UPDATE SET keys = c.keys + excluded.keys
    RETURNING c.keys)
SELECT (SELECT keys FROM held) + (SELECT count(*) FROM remembered) <= $7 OR pigeon_refuse('429', $8)
       AS within, (SELECT count(*) FROM counted) AS counted;

-- name: PostKeyStore.SETTINGS
SELECT set_config('pigeon.deduplicating', 'on', true) AS marked,
       COALESCE((SELECT (metadata->'_content_based_deduplication')::text = 'true'
                 FROM queues WHERE project = $1 AND name = $2), false) AS content_based,
       COALESCE((SELECT metadata->>'_deduplication_scope' = 'group'
                 FROM queues WHERE project = $1 AND name = $2), false) AS per_group;

-- name: PostKeyStore.TAKE
WITH dedup_window AS (
    SELECT COALESCE(
        (SELECT CASE WHEN json_typeof(metadata->'_dedup_window_seconds') = 'number'
                     THEN LEAST(GREATEST((metadata->>'_dedup_window_seconds')::numeric, 1), $4)::int END
         FROM queues WHERE project = $1 AND name = $2), $3) AS seconds),
taken AS (
    INSERT INTO post_keys AS p (project, queue, kind, key, request_hash, expires_at)
    SELECT $1, $2, w.kind, w.key, CASE WHEN w.kind = 'key' THEN $7::bytea END,
           now() + (SELECT seconds FROM dedup_window) * interval '1 second'
    FROM unnest($5::text[], $6::text[]) AS w (kind, key)
    ORDER BY w.kind, w.key
    ON CONFLICT (project, queue, kind, key) DO UPDATE
    SET request_hash = CASE WHEN p.expires_at <= now() THEN excluded.request_hash ELSE p.request_hash END,
        message_ids = CASE WHEN p.expires_at <= now() THEN NULL ELSE p.message_ids END,
        expires_at = CASE WHEN p.expires_at <= now() THEN excluded.expires_at ELSE p.expires_at END
    RETURNING p.kind, p.key, p.request_hash, p.message_ids)
SELECT kind, key, request_hash, message_ids FROM taken;

-- name: SetAsideStore.KEEP_POPPED
INSERT INTO messages_set_aside (queue_id, id, client_id, ttl, body, key_id, created_at, expires_at)
SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::uuid[], $4::int[], $5::text[], $6::text[],
                     $7::timestamptz[], $8::timestamptz[])
ON CONFLICT DO NOTHING;

-- name: SetAsideStore.SET_ASIDE_CLAIMED
WITH aside AS (
    DELETE FROM messages m
    WHERE m.queue_id = $1 AND m.id = ANY($2::bigint[]) AND m.claim_id = ANY($3::uuid[])
    RETURNING queue_id, id, client_id, ttl, body, key_id, created_at, expires_at),
kept AS (
    INSERT INTO messages_set_aside (queue_id, id, client_id, ttl, body, key_id, created_at, expires_at) SELECT queue_id, id, client_id, ttl, body, key_id, created_at, expires_at FROM aside ON CONFLICT DO NOTHING),
trimmed AS (
    UPDATE claims c SET message_ids = ARRAY(SELECT x FROM unnest(c.message_ids) AS x WHERE x <> ALL($2::bigint[]))
    WHERE c.queue_id = $1 AND c.id = ANY($3::uuid[]) AND NOT c.message_ids <@ $2::bigint[]),
emptied AS (
    DELETE FROM claims c
    WHERE c.queue_id = $1 AND c.id = ANY($3::uuid[]) AND c.message_ids <@ $2::bigint[])
SELECT count(*) AS set_aside FROM aside;

-- name: SetAsideStore.SET_ASIDE_RESEALING
WITH aside AS (
    DELETE FROM messages m
    WHERE m.queue_id = $1 AND m.id = ANY($2::bigint[]) AND m.visible_at = 'infinity'
    RETURNING queue_id, id, client_id, ttl, body, key_id, created_at, expires_at)
INSERT INTO messages_set_aside (queue_id, id, client_id, ttl, body, key_id, created_at, expires_at) SELECT queue_id, id, client_id, ttl, body, key_id, created_at, expires_at FROM aside ON CONFLICT DO NOTHING;

-- name: FlavorStore.DELETE
WITH released AS (UPDATE pools SET flavor = NULL, updated_at = now() WHERE flavor = $1 RETURNING name)
DELETE FROM flavors WHERE name = $1;

-- name: FlavorStore.GET
SELECT f.name, ARRAY(SELECT p.name FROM pools p WHERE p.flavor = f.name ORDER BY p.name) AS pools
FROM flavors f WHERE f.name = $1;

-- name: FlavorStore.LIST
SELECT f.name, ARRAY(SELECT p.name FROM pools p WHERE p.flavor = f.name ORDER BY p.name) AS pools
FROM flavors f WHERE f.name > $1 ORDER BY f.name LIMIT $2;

-- name: FlavorStore.REPLACE
WITH wanted AS (SELECT DISTINCT unnest($2::text[]) AS pool),
missing AS (SELECT w.pool FROM wanted w WHERE NOT EXISTS (SELECT 1 FROM pools p WHERE p.name = w.pool)),
existing AS (SELECT name FROM flavors WHERE name = $1),
allowed AS (SELECT NOT EXISTS (SELECT 1 FROM missing) AND (NOT $3 OR EXISTS (SELECT 1 FROM existing)) AS ok),
created AS (
    INSERT INTO flavors (name) SELECT $1 FROM allowed WHERE ok
    ON CONFLICT (name) DO NOTHING RETURNING name),
joined AS (
    UPDATE pools SET flavor = $1, updated_at = now()
    WHERE name IN (SELECT pool FROM wanted) AND (SELECT ok FROM allowed) RETURNING name),
removed AS (
    UPDATE pools SET flavor = NULL, updated_at = now()
    WHERE flavor = $1 AND name NOT IN (SELECT pool FROM wanted) AND (SELECT ok FROM allowed) RETURNING name)
SELECT ARRAY(SELECT pool FROM missing ORDER BY pool) AS missing, EXISTS (SELECT 1 FROM existing) AS existed;

-- name: Placements.FIND
SELECT pool FROM placements WHERE project = $1 AND queue = $2;

-- name: Placements.FLAVOR_EXISTS
SELECT 1 FROM flavors WHERE name = $1;

-- name: Placements.PLACE
WITH existing AS (SELECT pool FROM placements WHERE project = $1 AND queue = $2),
at_home AS (SELECT 1 FROM queues WHERE project = $1 AND name = $2),
candidates AS (
    SELECT name, sum(weight) OVER (ORDER BY name) AS upto
    FROM pools WHERE weight > 0 AND flavor IS NOT DISTINCT FROM $3),
draw AS (SELECT floor(random() * (SELECT max(upto) FROM candidates)) AS at),
chosen AS (
    SELECT name FROM candidates WHERE NOT EXISTS (SELECT 1 FROM at_home)
      AND upto > (SELECT at FROM draw) ORDER BY upto LIMIT 1),
inserted AS (
    INSERT INTO placements (project, queue, pool)
    SELECT $1, $2, (SELECT name FROM chosen)
    WHERE NOT EXISTS (SELECT 1 FROM existing)
      AND (EXISTS (SELECT 1 FROM chosen) OR EXISTS (SELECT 1 FROM at_home) OR $3::text IS NULL)
    ON CONFLICT (project, queue) DO NOTHING
    RETURNING pool)
SELECT true AS placed, pool FROM existing
UNION ALL
SELECT true, pool FROM inserted
UNION ALL
SELECT false, NULL WHERE NOT EXISTS (SELECT 1 FROM existing) AND NOT EXISTS (SELECT 1 FROM inserted);

-- name: Placements.PLACE_AT
WITH inserted AS (
    INSERT INTO placements (project, queue, pool) VALUES ($1, $2, $3)
    ON CONFLICT (project, queue) DO NOTHING RETURNING pool)
SELECT pool FROM inserted
UNION ALL
SELECT pool FROM placements WHERE project = $1 AND queue = $2 AND NOT EXISTS (SELECT 1 FROM inserted);

-- name: PoolClients.EVERY_POOL
SELECT name, uri FROM pools;

-- name: PoolClients.REGISTERED
SELECT name, uri FROM pools ORDER BY name;

-- name: PoolSchemas.IDENTITY
SELECT (SELECT system_identifier FROM pg_control_system())::text || '/' || current_database();

-- name: PoolSchemas.MOVE_GROUP_IDS
SELECT setval(s, greatest(coalesce(pg_sequence_last_value(s), 0), ?))
FROM (SELECT pg_get_serial_sequence('dispatch_groups', 'id')::regclass AS s) AS sequence;

-- name: PoolService.HOLDS_QUEUES
SELECT EXISTS (SELECT 1 FROM queues) OR EXISTS (SELECT 1 FROM dispatch_groups) AS holds;

-- name: PoolService.ID_BLOCK_AND_IDENTITY
SELECT nextval('pool_id_blocks') AS block, (SELECT (SELECT system_identifier FROM pg_control_system())::text || '/' || current_database()) AS identity;

-- name: PoolStore.DELETE
WITH target AS (SELECT name, flavor FROM pools WHERE name = $1 FOR UPDATE),
refusal AS (
    SELECT CASE WHEN t.flavor IS NOT NULL AND EXISTS (SELECT 1 FROM flavors f WHERE f.name = t.flavor)
                     AND NOT EXISTS (SELECT 1 FROM pools p WHERE p.flavor = t.flavor AND p.name <> t.name)
                THEN 'flavor' END AS reason, t.flavor
    FROM target t),
deleted AS (DELETE FROM pools p USING refusal r WHERE p.name = $1 AND r.reason IS NULL RETURNING p.name)
SELECT r.reason, r.flavor FROM refusal r;

-- name: PoolStore.GET
SELECT name, uri, weight, flavor, options::text AS options FROM pools WHERE name = $1;

-- name: PoolStore.LIST
SELECT name, uri, weight, flavor, options::text AS options FROM pools WHERE name > $1 ORDER BY name LIMIT $2;

-- name: PoolStore.NAMES
SELECT name FROM pools ORDER BY name;

-- name: PoolStore.OTHER_USING
SELECT name FROM pools WHERE uri = $1 AND name <> $2;

-- name: PoolStore.STORED_URI
SELECT uri FROM pools WHERE name = $1;

-- name: PoolStore.UPDATE
UPDATE pools
SET uri = COALESCE($2, uri), weight = COALESCE($3, weight),
    flavor = CASE WHEN $4::text IS NULL THEN flavor WHEN $4::text = '' THEN NULL ELSE $4::text END,
    options = COALESCE($5::text::json, options), updated_at = now()
WHERE name = $1
RETURNING name, uri, weight, flavor, options::text AS options;

-- name: PoolStore.UPSERT
INSERT INTO pools (name, uri, weight, flavor, options) VALUES ($1, $2, $3, $4, $5::text::json)
ON CONFLICT (name) DO UPDATE
SET uri = EXCLUDED.uri, weight = EXCLUDED.weight, flavor = EXCLUDED.flavor, options = EXCLUDED.options,
    updated_at = now();

-- name: QueueStore.COUNT
SELECT count(*) FROM queues
WHERE project = $1 AND name < $3 AND ($2::text IS NULL OR strpos(name, $2) > 0);

-- name: QueueStore.COUNT_EVERY
SELECT count(*) FROM queues;

-- name: QueueStore.CREATE
INSERT INTO queues (project, name) SELECT $1, $2 WHERE (EXISTS (SELECT 1 FROM queues WHERE project = $1 AND name = $2)
 OR (SELECT count(*) FROM queues WHERE project = $1) < $3 OR pigeon_refuse('403', $4))
ON CONFLICT (project, name) DO NOTHING
RETURNING id;

-- name: QueueStore.CREATE_WITH_METADATA
INSERT INTO queues (project, name, metadata) SELECT $1, $2, $5::text::json WHERE (EXISTS (SELECT 1 FROM queues WHERE project = $1 AND name = $2)
 OR (SELECT count(*) FROM queues WHERE project = $1) < $3 OR pigeon_refuse('403', $4))
ON CONFLICT (project, name) DO NOTHING
RETURNING id;

-- name: QueueStore.DELETE
WITH dropped AS (DELETE FROM subscriptions WHERE project = $1 AND source = $2 RETURNING id),
notifications_cancelled AS (
    DELETE FROM dispatch_groups g USING dropped d
    WHERE g.project = $1 AND g.merge_key = '-subscription:' || d.id AND NOT g.mergeable
      AND g.state = 'pending'),
gone AS (DELETE FROM queues WHERE project = $1 AND name = $2 RETURNING id),
messages_gone AS (DELETE FROM messages WHERE queue_id = ANY(ARRAY(SELECT id FROM gone))),
claims_gone AS (DELETE FROM claims WHERE queue_id = ANY(ARRAY(SELECT id FROM gone))),
set_aside_gone AS (DELETE FROM messages_set_aside WHERE queue_id = ANY(ARRAY(SELECT id FROM gone)))
INSERT INTO dropped_queues (queue_id) SELECT id FROM gone;

-- name: QueueStore.EXISTS
SELECT 1 FROM queues WHERE project = $1 AND name = $2;

-- name: QueueStore.LIST
SELECT name, CASE WHEN $4 THEN metadata::text END AS metadata
FROM queues
WHERE project = $1 AND name > $2 AND name < $6 AND ($5::text IS NULL OR strpos(substr(name, $7), $5) > 0)
ORDER BY name
LIMIT $3;

-- name: QueueStore.METADATA
SELECT metadata::text FROM queues WHERE project = $1 AND name = $2;

-- name: QueueStore.REPLACE_METADATA
UPDATE queues SET metadata = $3::text::json, metadata_changed_at = now()
WHERE project = $1 AND name = $2;

-- name: QueueStore.REPLACE_METADATA_IF
UPDATE queues SET metadata = $4::text::json, metadata_changed_at = now()
WHERE project = $1 AND name = $2 AND metadata::text = $3;

-- name: QueueMetricsStore.FLUSH
WITH by_queue AS MATERIALIZED (
    SELECT d.n, q.id AS queue_id, d.posted, d.claimed, d.deleted, d.empty_claims
    FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
         WITH ORDINALITY AS d (project, name, posted, claimed, deleted, empty_claims, n)
    JOIN queues q ON q.project = d.project AND q.name = d.name),
by_subscription AS (
    SELECT q.id AS queue_id, n.delivered, n.failed
    FROM unnest($7::text[], $8::bigint[], $9::bigint[], $10::bigint[])
         AS n (project, subscription, delivered, failed)
    JOIN subscriptions s ON s.id = n.subscription AND s.project = n.project
    JOIN queues q ON q.project = s.project AND q.name = s.source),
added AS (
    INSERT INTO queue_counters AS c (queue_id, posted, claimed, deleted, empty_claims,
                                     notifications_delivered, notifications_failed)
    SELECT a.queue_id, sum(a.posted), sum(a.claimed), sum(a.deleted), sum(a.empty_claims), sum(a.delivered),
           sum(a.failed)
    FROM (SELECT queue_id, posted, claimed, deleted, empty_claims, 0 AS delivered, 0 AS failed FROM by_queue
          UNION ALL
          SELECT queue_id, 0, 0, 0, 0, delivered, failed FROM by_subscription) a
    GROUP BY a.queue_id ORDER BY a.queue_id
    ON CONFLICT (queue_id) DO UPDATE
    SET posted = c.posted + EXCLUDED.posted, claimed = c.claimed + EXCLUDED.claimed,
        deleted = c.deleted + EXCLUDED.deleted, empty_claims = c.empty_claims + EXCLUDED.empty_claims,
        notifications_delivered = c.notifications_delivered + EXCLUDED.notifications_delivered,
        notifications_failed = c.notifications_failed + EXCLUDED.notifications_failed)
SELECT n FROM by_queue;

-- name: QueueMetricsStore.HISTORY
SELECT extract(epoch FROM p.minute)::float8 AS minute, p.posted, p.deleted,
       extract(epoch FROM date_trunc('minute', now()))::float8 AS this_minute
FROM (SELECT 1) one
LEFT JOIN LATERAL (
    SELECT h.minute, h.posted, h.deleted
    FROM queues q
    JOIN queue_counter_history h ON h.queue_id = q.id
    WHERE q.project = $1 AND q.name = $2
    ORDER BY h.minute DESC
    LIMIT $3 + 2) p ON true
ORDER BY p.minute DESC;

-- name: QueueMetricsStore.OVERVIEW_BY_COUNT
WITH sources AS MATERIALIZED (
    SELECT d.dead_letter_queue,
           array_to_string((array_agg(d.name ORDER BY d.name))[1:5], ', ') AS names, count(*) AS how_many
    FROM (SELECT name, metadata ->> '_dead_letter_queue' AS dead_letter_queue
          FROM queues
          WHERE project = $1 AND name < $2 AND metadata::text LIKE '%_dead_letter_queue%') d
    WHERE d.dead_letter_queue IS NOT NULL
    GROUP BY d.dead_letter_queue)
SELECT q.name, s.ready, s.claimed, s.delayed, coalesce(s.estimated, false) AS estimated,
       extract(epoch FROM r.sampled_at - s.oldest_ready_at)::float8 AS oldest_ready_age,
       src.names AS dead_letter_sources, src.how_many AS dead_letter_source_count,
       q.metadata ->> '_dead_letter_queue' AS dead_letter_queue
FROM queues q
CROSS JOIN queue_sample_runs r
LEFT JOIN queue_samples s ON s.queue_id = q.id
LEFT JOIN sources src ON src.dead_letter_queue = q.name
WHERE q.project = $1 AND q.name < $2 AND ($3 = '' OR strpos(q.name, $3) > 0)
ORDER BY CASE $6::text WHEN 'ready' THEN s.ready WHEN 'claimed' THEN s.claimed WHEN 'delayed' THEN s.delayed
              WHEN 'age' THEN extract(epoch FROM r.sampled_at - s.oldest_ready_at)::bigint END
         DESC NULLS LAST, q.name
LIMIT $4 OFFSET $5;

-- name: QueueMetricsStore.OVERVIEW_BY_NAME
WITH sources AS MATERIALIZED (
    SELECT d.dead_letter_queue,
           array_to_string((array_agg(d.name ORDER BY d.name))[1:5], ', ') AS names, count(*) AS how_many
    FROM (SELECT name, metadata ->> '_dead_letter_queue' AS dead_letter_queue
          FROM queues
          WHERE project = $1 AND name < $2 AND metadata::text LIKE '%_dead_letter_queue%') d
    WHERE d.dead_letter_queue IS NOT NULL
    GROUP BY d.dead_letter_queue)
SELECT q.name, s.ready, s.claimed, s.delayed, coalesce(s.estimated, false) AS estimated,
       extract(epoch FROM r.sampled_at - s.oldest_ready_at)::float8 AS oldest_ready_age,
       src.names AS dead_letter_sources, src.how_many AS dead_letter_source_count,
       q.metadata ->> '_dead_letter_queue' AS dead_letter_queue
FROM queues q
CROSS JOIN queue_sample_runs r
LEFT JOIN queue_samples s ON s.queue_id = q.id
LEFT JOIN sources src ON src.dead_letter_queue = q.name
WHERE q.project = $1 AND q.name < $2 AND ($3 = '' OR strpos(q.name, $3) > 0)
ORDER BY q.name
LIMIT $4 OFFSET $5;

-- name: QueueMetricsStore.PAGE_HISTORIES
SELECT q.name, extract(epoch FROM h.minute)::float8 AS minute, h.posted, h.deleted,
       extract(epoch FROM date_trunc('minute', now()))::float8 AS this_minute
FROM queues q
CROSS JOIN LATERAL (
    SELECT l.minute, l.posted, l.deleted FROM queue_counter_history l
    WHERE l.queue_id = q.id
    ORDER BY l.minute DESC
    LIMIT $3 + 2) h
WHERE q.project = $1 AND q.name = ANY($2::text[])
ORDER BY q.name, h.minute DESC;

-- name: QueueMetricsStore.READ_EVERY_PROJECT
SELECT q.project, q.name, s.ready, s.claimed, s.delayed, s.estimated, s.blocked_groups,
       extract(epoch FROM r.sampled_at - s.oldest_ready_at)::float8 AS oldest_ready_age,
       c.posted, c.claimed AS claimed_total, c.deleted, c.empty_claims, c.dead_lettered,
       c.notifications_delivered, c.notifications_failed
FROM queues q
CROSS JOIN queue_sample_runs r
LEFT JOIN queue_samples s ON s.queue_id = q.id
LEFT JOIN queue_counters c ON c.queue_id = q.id
WHERE cardinality($1::text[]) = 0 AND (cardinality($2::text[]) = 0 OR q.name = ANY($2::text[]))
ORDER BY q.project, q.name
LIMIT $3;

-- name: QueueMetricsStore.READ_PROJECTS
SELECT q.project, q.name, s.ready, s.claimed, s.delayed, s.estimated, s.blocked_groups,
       extract(epoch FROM r.sampled_at - s.oldest_ready_at)::float8 AS oldest_ready_age,
       c.posted, c.claimed AS claimed_total, c.deleted, c.empty_claims, c.dead_lettered,
       c.notifications_delivered, c.notifications_failed
FROM queues q
CROSS JOIN queue_sample_runs r
LEFT JOIN queue_samples s ON s.queue_id = q.id
LEFT JOIN queue_counters c ON c.queue_id = q.id
WHERE q.project = ANY($1::text[]) AND (cardinality($2::text[]) = 0 OR q.name = ANY($2::text[]))
ORDER BY q.project, q.name
LIMIT $3;

-- name: QueueMetricsStore.RECORD_HISTORY
WITH written AS (
    INSERT INTO queue_counter_history AS h (queue_id, minute, posted, deleted)
    SELECT c.queue_id, date_trunc('minute', now()), c.posted, c.deleted
    FROM queue_counters c
    LEFT JOIN LATERAL (
        SELECT l.posted, l.deleted FROM queue_counter_history l
        WHERE l.queue_id = c.queue_id
        ORDER BY l.minute DESC
        LIMIT 1) last ON true
    WHERE last.posted IS NULL OR (last.posted, last.deleted) <> (c.posted, c.deleted)
    ORDER BY c.queue_id
    ON CONFLICT (queue_id, minute) DO UPDATE SET posted = EXCLUDED.posted, deleted = EXCLUDED.deleted
    RETURNING 1),
dropped AS (
    DELETE FROM queue_counter_history h
    WHERE h.minute < now() - $1 * interval '1 minute'
      AND (EXISTS (SELECT 1 FROM queue_counter_history n WHERE n.queue_id = h.queue_id AND n.minute > h.minute)
           OR NOT EXISTS (SELECT 1 FROM queues q WHERE q.id = h.queue_id))
    RETURNING 1)
SELECT (SELECT count(*) FROM written) AS written, (SELECT count(*) FROM dropped) AS dropped;

-- name: QueueMetricsStore.SAMPLE
WITH lock AS (SELECT pg_try_advisory_xact_lock($1) AS held),
run AS (
    UPDATE queue_sample_runs SET sampled_at = now()
    WHERE (SELECT held FROM lock) AND sampled_at <= now() - $2 * interval '1 millisecond'
    RETURNING sampled_at),
counted AS MATERIALIZED (
    SELECT q.id AS queue_id, h.total > $3 AS estimated,
           CASE WHEN h.total > $3
                THEN ((SELECT max(m.id) FROM messages m WHERE m.queue_id = q.id) - h.first_id + 1)::float8
                     / (h.last_id - h.first_id + 1)
                ELSE 1 END AS scale,
           h.ready, h.claimed, h.delayed, h.oldest_ready_at,
           CASE WHEN q.metadata ->> '_ordering' = 'fifo' THEN b.blocked_groups END AS blocked_groups
    FROM queues q
    CROSS JOIN LATERAL (SELECT CASE WHEN q.metadata->>'_dead_letter_queue' IS NOT NULL
     THEN (q.metadata->>'_max_claim_count')::int END AS max_claims) r
    CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE s.state = 'ready') AS ready,
               count(*) FILTER (WHERE s.state = 'claimed') AS claimed,
               count(*) FILTER (WHERE s.state = 'delayed') AS delayed,
               min(s.created_at) FILTER (WHERE s.state = 'ready') AS oldest_ready_at,
               count(*) AS total, min(s.id) AS first_id, max(s.id) AS last_id
        FROM (SELECT m.id, m.created_at,
                     CASE WHEN (m.claim_id IS NOT NULL AND m.claim_expires_at > now()) THEN 'claimed'
                          WHEN NOT (m.visible_at IS NULL OR m.visible_at <= now()) THEN 'delayed'
                          WHEN m.claim_count >= r.max_claims THEN 'dead-lettering'
                          ELSE 'ready' END AS state
              FROM messages m
              WHERE m.queue_id = q.id AND m.expires_at > now()
              ORDER BY m.id LIMIT $3 + 1) s) h
    CROSS JOIN LATERAL (
        SELECT count(DISTINCT c.message_group) AS blocked_groups
        FROM (SELECT m.message_group FROM messages m
              WHERE q.metadata ->> '_ordering' = 'fifo' AND m.queue_id = q.id AND m.message_group IS NOT NULL AND m.claim_id IS NOT NULL
                AND m.claim_expires_at > now() AND m.expires_at > now()
              LIMIT $3 + 1) c) b
    WHERE EXISTS (SELECT 1 FROM run)),
stored AS (
    INSERT INTO queue_samples AS s (queue_id, ready, claimed, delayed, oldest_ready_at, estimated,
                                    blocked_groups)
    SELECT queue_id, round(ready * scale), round(claimed * scale), round(delayed * scale), oldest_ready_at,
           estimated, blocked_groups
    FROM counted ORDER BY queue_id
    ON CONFLICT (queue_id) DO UPDATE
    SET ready = EXCLUDED.ready, claimed = EXCLUDED.claimed, delayed = EXCLUDED.delayed,
        oldest_ready_at = EXCLUDED.oldest_ready_at, estimated = EXCLUDED.estimated,
        blocked_groups = EXCLUDED.blocked_groups
    WHERE (s.ready, s.claimed, s.delayed, s.oldest_ready_at, s.estimated, s.blocked_groups)
          IS DISTINCT FROM (EXCLUDED.ready, EXCLUDED.claimed, EXCLUDED.delayed, EXCLUDED.oldest_ready_at,
                            EXCLUDED.estimated, EXCLUDED.blocked_groups)
    RETURNING 1),
samples_gone AS (
    DELETE FROM queue_samples s
    WHERE EXISTS (SELECT 1 FROM run) AND NOT EXISTS (SELECT 1 FROM queues q WHERE q.id = s.queue_id)),
totals_gone AS (
    DELETE FROM queue_counters c
    WHERE EXISTS (SELECT 1 FROM run) AND NOT EXISTS (SELECT 1 FROM queues q WHERE q.id = c.queue_id))
SELECT (SELECT held FROM lock) AS held, EXISTS (SELECT 1 FROM run) AS sampled, (SELECT count(*) FROM counted) AS queues,
       (SELECT count(*) FROM stored) AS changed;

-- name: UsageCheck.COUNT
WITH lock AS (SELECT pg_try_advisory_xact_lock($3) AS held),
over_messages AS (
    SELECT q.project, 'messages' AS kind, m.queue_id
    FROM (SELECT queue_id FROM messages GROUP BY queue_id HAVING count(*) > $1) m
    JOIN queues q ON q.id = m.queue_id
    WHERE (SELECT held FROM lock)),
kept AS (
    SELECT project, count(*) AS groups, sum(items) AS items, sum(item_bytes) AS bytes
    FROM dispatch_groups WHERE (SELECT held FROM lock)
    GROUP BY project),
over_groups AS (
    SELECT p.project, k.kind, 0::bigint AS queue_id
    FROM kept p
    CROSS JOIN LATERAL (VALUES ('groups', p.groups > $2), ('items', p.items > $4),
                               ('bytes', p.bytes > $5)) AS k (kind, over)
    WHERE k.over),
found AS (SELECT * FROM over_messages UNION ALL SELECT * FROM over_groups),
cleared AS (
    DELETE FROM quota_breaches b
    WHERE (SELECT held FROM lock)
      AND NOT EXISTS (SELECT 1 FROM found f WHERE f.project = b.project AND f.kind = b.kind
                      AND f.queue_id = b.queue_id)
    RETURNING 1),
added AS (
    INSERT INTO quota_breaches (project, kind, queue_id)
    SELECT project, kind, queue_id FROM found
    ON CONFLICT DO NOTHING
    RETURNING 1)
SELECT (SELECT held FROM lock) AS held, (SELECT count(*) FROM found) AS breaches;

-- name: RedriveStore.BATCH
WITH task AS (
    SELECT t.id, t.project, t.queue_id, t.target, t.upto_id
    FROM redrive_tasks t
    WHERE t.id = $1 AND t.lease_token = $2 AND t.state = 'running' AND t.last_id = $3
    FOR UPDATE),
dlq AS (
    SELECT q.id FROM task t JOIN queues q ON q.id = t.queue_id AND q.project = t.project),
candidates AS MATERIALIZED (
    SELECT c.* FROM task t
    CROSS JOIN LATERAL (
        SELECT m.id, m.dead_letter_source AS source, m.key_id,
               m.claim_id IS NOT NULL AND m.claim_expires_at > now() AS claimed
        FROM messages m
        WHERE m.queue_id = t.queue_id AND m.id > $3 AND m.id <= t.upto_id AND m.expires_at > now()
        ORDER BY m.id
        LIMIT $4
        FOR UPDATE OF m) c
    WHERE EXISTS (SELECT 1 FROM dlq)),
destinations AS (
    SELECT DISTINCT COALESCE(t.target, c.source) AS name
    FROM candidates c CROSS JOIN task t
    WHERE NOT c.claimed AND COALESCE(t.target, c.source) IS NOT NULL),
targets AS MATERIALIZED (
    SELECT q.id, q.project COLLATE "default" AS project, q.name COLLATE "default" AS name, q.wake_until
    FROM task t CROSS JOIN destinations d
    CROSS JOIN LATERAL (SELECT id, project, name, wake_until FROM queues
                        WHERE project = t.project AND name = d.name LIMIT 1) q
    WHERE q.id <> t.queue_id
      AND NOT EXISTS (SELECT 1 FROM quota_breaches b
                      WHERE b.project = t.project AND b.kind = 'messages' AND b.queue_id = q.id)),
decided AS MATERIALIZED (
    SELECT c.id, q.id AS target_id
    FROM candidates c CROSS JOIN task t
    LEFT JOIN targets q ON NOT c.claimed AND q.name = COALESCE(t.target, c.source)),
moved AS (
    UPDATE messages m
    SET queue_id = d.target_id, claim_id = NULL, claim_expires_at = NULL, claim_count = 0, first_claimed_at = NULL,
        dead_letter_source = NULL,
        visible_at = CASE WHEN m.key_id IS NOT NULL THEN 'infinity'::timestamptz ELSE m.visible_at END
    FROM decided d, task t
    WHERE m.queue_id = t.queue_id AND m.id = d.id AND d.target_id IS NOT NULL
    RETURNING m.id, m.queue_id, m.key_id, m.visible_at),
inserted AS (
    SELECT id, queue_id FROM moved WHERE key_id IS NULL AND (visible_at IS NULL OR visible_at <= now())),
arrived AS (
    SELECT queue_id, count(*) AS messages FROM inserted GROUP BY queue_id),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', w.project::text, 'queue', w.name::text,
                                               'messages', a.messages)::text)
    FROM targets w JOIN arrived a ON a.queue_id = w.id
    WHERE true AND w.wake_until > now() AND a.messages > 0),
sockets_told AS (
    SELECT pg_notify('pigeon_socket_posts', json_build_object('project', c.project, 'queue', c.name,
                                               'ids', array_agg(c.id ORDER BY c.id))::text)
    FROM (SELECT t.project, t.name, i.id,
                 (row_number() OVER (PARTITION BY i.queue_id ORDER BY i.id) - 1) / 300 AS notice
          FROM targets t JOIN inserted i ON i.queue_id = t.id
          WHERE EXISTS (SELECT 1 FROM subscriptions s
                        WHERE s.project = t.project AND s.source = t.name AND s.socket_lease_until > now()
                          AND s.expires_at > now())) c
    GROUP BY c.project, c.name, c.notice),
progress AS (
    UPDATE redrive_tasks r
    SET last_id = COALESCE((SELECT max(id) FROM candidates), r.last_id),
        moved = r.moved + (SELECT count(*) FROM moved),
        skipped = r.skipped + (SELECT count(*) FROM decided WHERE target_id IS NULL),
        state = s.state,
        reason = CASE WHEN s.state = 'failed' THEN 'the queue was deleted' END,
        finished_at = CASE WHEN s.state <> 'running' THEN now() END,
        lease_token = CASE WHEN s.state = 'running' THEN r.lease_token END,
        lease_until = CASE WHEN s.state = 'running' THEN now() + $5 * interval '1 millisecond' END
    FROM task t
    CROSS JOIN LATERAL (
        SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM dlq) THEN 'failed'
                    WHEN NOT EXISTS (SELECT 1 FROM candidates) THEN 'done'
                    ELSE 'running' END AS state) s
    WHERE r.id = t.id
    RETURNING r.state, r.last_id)
SELECT p.state, p.last_id, (SELECT count(*) FROM moved) AS moved_now, (SELECT count(*) FROM sockets_told) AS sockets_told,
       (SELECT count(*) FROM waiters_told) AS waiters_told
FROM progress p;

-- name: RedriveStore.CANCEL
WITH cancelled AS (
    UPDATE redrive_tasks
    SET state = 'cancelled', finished_at = now(), lease_token = NULL, lease_until = NULL
    WHERE project = $1 AND queue = $2 AND id = $3 AND state = 'running'
    RETURNING id)
SELECT EXISTS (SELECT 1 FROM cancelled)
       OR EXISTS (SELECT 1 FROM redrive_tasks WHERE project = $1 AND queue = $2 AND id = $3) AS found;

-- name: RedriveStore.GET
SELECT id, queue, target, rate, state, moved, skipped, started_at, finished_at, reason FROM redrive_tasks WHERE project = $1 AND queue = $2 AND id = $3;

-- name: RedriveStore.GIVE_BACK
UPDATE redrive_tasks t SET lease_token = NULL, lease_until = NULL
FROM unnest($1::uuid[], $2::uuid[]) AS r (id, lease_token)
WHERE t.id = r.id AND t.lease_token = r.lease_token AND t.state = 'running';

-- name: RedriveStore.LIST
SELECT id, queue, target, rate, state, moved, skipped, started_at, finished_at, reason FROM redrive_tasks
WHERE project = $1 AND queue = $2
ORDER BY started_at DESC, id
LIMIT $3;

-- name: RedriveStore.LOCK_PROJECT
SELECT pg_advisory_xact_lock(hashtextextended('pigeon.redrive-tasks:' || $1, 0));

-- name: RedriveStore.START
WITH dlq AS (SELECT id FROM queues WHERE project = $1 AND name = $2),
target AS (SELECT id FROM queues WHERE project = $1 AND name = $3::text),
running AS (SELECT t.id FROM redrive_tasks t JOIN dlq d ON t.queue_id = d.id WHERE t.state = 'running'),
held AS (
    SELECT count(*) AS tasks, count(*) FILTER (WHERE state = 'running') AS running
    FROM redrive_tasks WHERE project = $1),
allowed AS (
    SELECT d.id AS queue_id FROM dlq d
    WHERE NOT EXISTS (SELECT 1 FROM running)
      AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM target))
      AND (SELECT running FROM held) < $8),
recycled AS (
    DELETE FROM redrive_tasks
    WHERE id = ANY(ARRAY(
        SELECT id FROM redrive_tasks
        WHERE project = $1 AND state <> 'running' AND EXISTS (SELECT 1 FROM allowed)
        ORDER BY finished_at, id
        LIMIT GREATEST(0, (SELECT tasks FROM held) - $8 + 1)))
    RETURNING id),
inserted AS (
    INSERT INTO redrive_tasks (id, project, queue, queue_id, target, rate, upto_id, lease_token, lease_until)
    SELECT $4, $1, $2, a.queue_id, $3, $5,
           COALESCE((SELECT max(m.id) FROM messages m WHERE m.queue_id = a.queue_id), 0),
           $6::uuid, CASE WHEN $6::uuid IS NOT NULL THEN now() + $7 * interval '1 millisecond' END
    FROM allowed a
    RETURNING id, queue, target, rate, state, moved, skipped, started_at, finished_at, reason)
SELECT EXISTS (SELECT 1 FROM dlq) AS queue_found,
       ($3::text IS NULL OR EXISTS (SELECT 1 FROM target)) AS target_found,
       (SELECT id FROM running LIMIT 1) AS running_id,
       (SELECT count(*) FROM recycled) AS recycled,
       i.*
FROM (SELECT 1) AS one LEFT JOIN inserted i ON true;

-- name: RedriveStore.TAKE
UPDATE redrive_tasks
SET lease_token = gen_random_uuid(), lease_until = now() + $2 * interval '1 millisecond'
WHERE id = ANY(ARRAY(
    SELECT id FROM redrive_tasks
    WHERE id = ANY(ARRAY(
        SELECT c.id FROM (
            SELECT id, project, started_at,
                   row_number() OVER (PARTITION BY project ORDER BY started_at) AS place
            FROM redrive_tasks
            WHERE state = 'running' AND (lease_until IS NULL OR lease_until <= now())) c
        LEFT JOIN unnest($3::text[], $4::int[]) AS h (project, held) ON h.project = c.project
        WHERE c.place + COALESCE(h.held, 0) <= $5
        ORDER BY c.started_at
        LIMIT $1))
      AND state = 'running' AND (lease_until IS NULL OR lease_until <= now())
    ORDER BY started_at
    FOR UPDATE SKIP LOCKED))
RETURNING id, project, lease_token, rate, last_id;

-- name: ReceiptHandles.SECRET_ROW
SELECT value FROM deployment_secrets WHERE name = 'receipt-handles';

-- name: ReceiveAttemptStore.LOCK_PROJECT
SELECT pg_advisory_xact_lock(hashtextextended('pigeon.sqs-receive-attempts:' || $1, 0));

-- name: ReceiveAttemptStore.REMEMBER
WITH q AS (SELECT id FROM queues WHERE project = $1 AND name = $2),
room AS (
    SELECT EXISTS (SELECT 1 FROM sqs_receive_attempts l
                   WHERE l.queue_id = (SELECT id FROM q) AND l.attempt_id = $3 AND l.expires_at > now())
           OR (SELECT count(*) FROM (SELECT 1 FROM sqs_receive_attempts b
                                     WHERE b.project = $1 AND b.expires_at > now() LIMIT $7) b) < $7
           AS free),
stored AS (
    INSERT INTO sqs_receive_attempts AS a
        (queue_id, attempt_id, project, claim_id, message_ids, receive_counts, visible_until, expires_at)
    SELECT q.id, $3, $1, $4, $5, $6,
           COALESCE((SELECT min(m.claim_expires_at) FROM messages m
                     WHERE m.queue_id = q.id AND m.id = ANY($5) AND m.claim_id = $4), '-infinity'),
           now() + $8 * interval '1 second'
    FROM q
    WHERE (SELECT free FROM room)
    ON CONFLICT (queue_id, attempt_id) DO UPDATE
    SET claim_id = EXCLUDED.claim_id, message_ids = EXCLUDED.message_ids,
        receive_counts = EXCLUDED.receive_counts, visible_until = EXCLUDED.visible_until,
        expires_at = EXCLUDED.expires_at
    WHERE a.expires_at <= now()
    RETURNING 1)
SELECT (SELECT free FROM room) AS room, (SELECT count(*) FROM stored) AS stored;

-- name: ReceiveAttemptStore.REPLAY
WITH q AS (SELECT id FROM queues WHERE project = $1 AND name = $2),
attempt AS (
    SELECT a.queue_id, a.attempt_id, a.claim_id, a.message_ids, a.receive_counts, a.visible_until
    FROM sqs_receive_attempts a
    WHERE a.queue_id = (SELECT id FROM q) AND a.attempt_id = $3 AND a.expires_at > now()
    FOR UPDATE),
held AS MATERIALIZED (
    SELECT m.id, m.claim_expires_at, m.expires_at
    FROM attempt a
    CROSS JOIN LATERAL unnest(a.message_ids, a.receive_counts) AS r (id, receive_count)
    JOIN messages m ON m.queue_id = a.queue_id AND m.id = r.id
    WHERE m.claim_id = a.claim_id AND m.claim_count = r.receive_count
    FOR UPDATE OF m),
replayable AS (
    SELECT a.* FROM attempt a
    WHERE (SELECT count(*) FROM held h
           WHERE h.claim_expires_at = a.visible_until AND h.claim_expires_at > now()
             AND h.expires_at > now()) = cardinality(a.message_ids)),
renewed AS (
    UPDATE messages m
    SET claim_expires_at = now() + $4 * interval '1 second',
        ttl = GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + $4, $5)),
        expires_at = m.created_at
            + GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + $4, $5))
              * interval '1 second'
    FROM replayable r
    WHERE m.queue_id = r.queue_id AND m.id = ANY(r.message_ids)
    RETURNING m.id, m.ttl, m.created_at, m.body, m.key_id, m.claim_count, m.message_group, m.traceparent,
              m.tracestate),
claim_renewed AS (
    UPDATE claims c SET expires_at = GREATEST(c.expires_at, now() + $4 * interval '1 second')
    FROM replayable r
    WHERE c.queue_id = r.queue_id AND c.id = r.claim_id
    RETURNING c.id),
remembered AS (
    UPDATE sqs_receive_attempts a SET visible_until = now() + $4 * interval '1 second'
    FROM replayable r
    WHERE a.queue_id = r.queue_id AND a.attempt_id = r.attempt_id
    RETURNING a.attempt_id)
SELECT EXISTS (SELECT 1 FROM q) AS queue_found, EXISTS (SELECT 1 FROM attempt) AS remembered,
       (SELECT claim_id FROM replayable) AS claim_id,
       CASE WHEN EXISTS (SELECT 1 FROM attempt) THEN false
            ELSE (SELECT count(*) FROM (SELECT 1 FROM sqs_receive_attempts b
                                        WHERE b.project = $1 AND b.expires_at > now() LIMIT $6) b) >= $6
       END AS at_bound,
       r.id, r.ttl, floor(extract(epoch FROM now() - r.created_at))::bigint AS age, r.body, r.key_id,
       r.claim_count, r.message_group, r.traceparent, r.tracestate
FROM (SELECT 1) one LEFT JOIN renewed r ON true
ORDER BY r.id;

-- name: SqsMessageStore.CHANGE_VISIBILITY
WITH q AS (SELECT id, wake_until FROM queues WHERE project = $1 AND name = $2),
asked AS (
    SELECT a.*, (a.timeout = 0 OR c.created_at + $8 * interval '1 second'
                                    >= now() + a.timeout * interval '1 second') AS within
    FROM unnest($3::bigint[], $4::uuid[], $5::int[], $6::int[])
         WITH ORDINALITY AS a (id, claim_id, receive_count, timeout, ord)
    LEFT JOIN claims c ON c.queue_id = (SELECT id FROM q) AND c.id = a.claim_id),
changed AS (
    UPDATE messages m
    SET claim_expires_at = now() + a.timeout * interval '1 second',
        ttl = GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + a.timeout, $7)),
        expires_at = m.created_at
            + GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + a.timeout, $7))
              * interval '1 second'
    FROM asked a
    WHERE a.within AND m.queue_id = (SELECT id FROM q) AND m.id = a.id AND m.claim_id = a.claim_id
      AND m.claim_count = a.receive_count AND m.claim_expires_at > now() AND m.expires_at > now()
    RETURNING m.id, a.claim_id, a.timeout, m.claim_expires_at),
extended AS (
    UPDATE claims c SET expires_at = x.until
    FROM (SELECT claim_id, max(claim_expires_at) AS until FROM changed GROUP BY claim_id) x
    WHERE c.queue_id = (SELECT id FROM q) AND c.id = x.claim_id AND c.expires_at < x.until
    RETURNING c.id),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', $1::text, 'queue', $2::text,
                                               'messages', (SELECT count(*) FROM changed WHERE timeout = 0))::text)
    FROM q
    WHERE true AND q.wake_until > now() AND (SELECT count(*) FROM changed WHERE timeout = 0) > 0)
SELECT a.ord, EXISTS (SELECT 1 FROM changed c WHERE c.id = a.id AND c.claim_id = a.claim_id) AS changed,
       EXISTS (SELECT 1 FROM messages m WHERE m.queue_id = (SELECT id FROM q) AND m.id = a.id
               AND m.expires_at > now()) AS exists,
       EXISTS (SELECT 1 FROM messages m WHERE m.queue_id = (SELECT id FROM q) AND m.id = a.id
               AND m.claim_id = a.claim_id AND m.claim_count = a.receive_count
               AND m.claim_expires_at > now() AND m.expires_at > now()) AS in_flight,
       EXISTS (SELECT 1 FROM q) AS queue_found, (SELECT count(*) FROM extended) AS extended,
       (SELECT count(*) FROM waiters_told) AS waiters_told
FROM asked a
ORDER BY a.ord;

-- name: SqsMessageStore.DELETE
WITH q AS (SELECT id, wake_until, metadata->>'_ordering' AS ordering
           FROM queues WHERE project = $1 AND name = $2),
deleted AS (
    DELETE FROM messages m
    USING unnest($3::bigint[], $4::uuid[], $5::int[]) AS r (id, claim_id, receive_count)
    WHERE m.queue_id = (SELECT id FROM q) AND m.id = r.id AND m.claim_count = r.receive_count
      AND (m.claim_id IS NULL OR m.claim_id = r.claim_id)
    RETURNING m.id, m.queue_id, m.message_group, m.message_group IS NOT NULL AND m.expires_at > now() AND ((m.claim_id IS NOT NULL AND m.claim_expires_at > now()) OR m.visible_at > now()) AS held_back),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', $1::text, 'queue', $2::text,
                                               'messages', (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = q.id AND u.held_back))::text)
    FROM q
    WHERE q.ordering = 'fifo' AND q.wake_until > now() AND (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = q.id AND u.held_back) > 0)
SELECT EXISTS (SELECT 1 FROM q) AS queue_found, ARRAY(SELECT id FROM deleted ORDER BY id) AS deleted,
       (SELECT count(*) FROM waiters_told) AS waiters_told;

-- name: SqsMessageStore.DELETE_SHARED
WITH q AS (
    SELECT q.id, r.ord, q.project, q.name, q.wake_until, q.metadata->>'_ordering' AS ordering
    FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS r (project, name, ord)
    JOIN queues q ON q.project = r.project AND q.name = r.name),
named AS MATERIALIZED (
    SELECT r.queue_ord, q.id AS queue_id, r.id, r.claim_id, r.receive_count
    FROM q JOIN unnest($3::int[], $4::bigint[], $5::uuid[], $6::int[])
                AS r (queue_ord, id, claim_id, receive_count) ON r.queue_ord = q.ord),
deleted AS (
    DELETE FROM messages m USING named n
    WHERE m.queue_id = n.queue_id AND m.id = n.id AND m.claim_count = n.receive_count
      AND (m.claim_id IS NULL OR m.claim_id = n.claim_id)
    RETURNING n.queue_ord, m.id, m.queue_id, m.message_group, m.message_group IS NOT NULL AND m.expires_at > now() AND ((m.claim_id IS NOT NULL AND m.claim_expires_at > now()) OR m.visible_at > now()) AS held_back),
waiters_told AS (
    SELECT pg_notify('pigeon_queue_ready', json_build_object('project', q.project::text, 'queue', q.name::text,
                                               'messages', (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = q.id AND u.held_back))::text)
    FROM q
    WHERE q.ordering = 'fifo' AND q.wake_until > now() AND (SELECT count(DISTINCT u.message_group) FROM deleted u WHERE u.queue_id = q.id AND u.held_back) > 0)
SELECT ARRAY(SELECT ord FROM q ORDER BY ord)::int[] AS queues_found,
       ARRAY(SELECT queue_ord FROM deleted ORDER BY id) AS deleted_queues,
       ARRAY(SELECT id FROM deleted ORDER BY id) AS deleted, (SELECT count(*) FROM waiters_told) AS waiters_told;

-- name: SqsMessageStore.RECEIVED
SELECT m.id, m.client_id, m.created_at, m.first_claimed_at, m.key_id, m.sqs_attributes, m.message_group
FROM queues q JOIN messages m ON m.queue_id = q.id
WHERE q.project = $1 AND q.name = $2 AND m.id = ANY($3::bigint[]);

-- name: SqsQueueStore.DEAD_LETTER_SOURCES
SELECT name FROM queues
WHERE project = $1 AND metadata ->> '_dead_letter_queue' = $2 AND name > $3 AND name < $4
ORDER BY name
LIMIT $5;

-- name: SqsQueueStore.DESCRIBE
SELECT metadata::text, floor(extract(epoch FROM created_at))::bigint,
       floor(extract(epoch FROM coalesce(metadata_changed_at, created_at)))::bigint
FROM queues WHERE project = $1 AND name = $2;

-- name: SqsQueueStore.LIST
SELECT name FROM queues
WHERE project = $1 AND name > $2 AND name < $3 AND starts_with(name, $4)
ORDER BY name
LIMIT $5;

-- name: DatabaseNotices.PROBE
SELECT 1;

-- name: SocketSubscriptionStore.CREATE
INSERT INTO subscriptions AS s (project, source, subscriber, ttl, options, expires_at, socket_lease_until)
SELECT $1, $2, $3, $4::int, $5::text::json, now() + $4::int * interval '1 second',
       now() + $6::int * interval '1 second'
WHERE ((SELECT count(*) FROM subscriptions WHERE project = $1 AND source = $2 AND expires_at > now()) < $7
       OR pigeon_refuse('403', $8))
  AND ((SELECT count(*) FROM subscriptions
        WHERE project = $1 AND socket_lease_until > now() AND expires_at > now()) < $9
       OR pigeon_refuse('403', $10))
ON CONFLICT (project, source, subscriber) DO UPDATE
SET ttl = EXCLUDED.ttl, options = EXCLUDED.options, created_at = now(), expires_at = EXCLUDED.expires_at,
    confirmed = false, confirmation_until = NULL, socket_lease_until = EXCLUDED.socket_lease_until
WHERE s.expires_at <= now() OR s.socket_lease_until <= now()
RETURNING id, (SELECT COALESCE(max(m.id), 0) FROM queues q JOIN messages m ON m.queue_id = q.id
               WHERE q.project = $1 AND q.name = $2) AS last_message_id,
          COALESCE((SELECT id FROM queues WHERE project = $1 AND name = $2), 0) AS queue_id,
          ttl, options::text AS options, created_at, expires_at;

-- name: SocketSubscriptionStore.FORGET
DELETE FROM subscriptions WHERE id = ANY($1::bigint[]) AND socket_lease_until IS NOT NULL;

-- name: SocketSubscriptionStore.MARK
SELECT pg_notify($1, $2);

-- name: SocketSubscriptionStore.POSTED_AFTER
SELECT q.project, q.name, l.sockets, m.id, m.ttl,
       floor(extract(epoch FROM now() - m.created_at))::bigint AS age, m.body, m.key_id
FROM queues q
CROSS JOIN LATERAL (
    SELECT array_agg(s.subscriber) AS sockets FROM subscriptions s
    WHERE s.project = q.project AND s.source = q.name AND s.socket_lease_until > now()
      AND s.expires_at > now()) l
JOIN messages m ON m.queue_id = q.id
WHERE q.project = $1 AND q.name = $2 AND l.sockets IS NOT NULL AND m.id > $3 AND m.expires_at > now()
ORDER BY m.id
LIMIT $4;

-- name: SocketSubscriptionStore.READ_BACK
WITH wanted AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[]) AS w (project, name, id)),
queue AS (
    SELECT DISTINCT project, name FROM wanted)
SELECT q.project, q.name, l.sockets, m.id, m.ttl,
       floor(extract(epoch FROM now() - m.created_at))::bigint AS age, m.body, m.key_id
FROM queue q
CROSS JOIN LATERAL (SELECT id FROM queues WHERE project = q.project AND name = q.name LIMIT 1) k
CROSS JOIN LATERAL (
    SELECT array_agg(s.subscriber) AS sockets FROM subscriptions s
    WHERE s.project = q.project AND s.source = q.name AND s.socket_lease_until > now()
      AND s.expires_at > now()) l
JOIN wanted w ON w.project = q.project AND w.name = q.name
JOIN messages m ON m.queue_id = k.id AND m.id = w.id
WHERE l.sockets IS NOT NULL AND m.expires_at > now()
ORDER BY q.project, q.name, m.id;

-- name: SocketSubscriptionStore.RENEW
UPDATE subscriptions s SET socket_lease_until = now() + $2::int * interval '1 second'
WHERE s.id = ANY($1::bigint[]) AND s.socket_lease_until IS NOT NULL
RETURNING s.id, s.ttl, s.options::text AS options, s.created_at, s.expires_at,
          COALESCE((SELECT q.id FROM queues q WHERE q.project = s.project AND q.name = s.source), 0)
              AS queue_id;

-- name: SocketSubscriptionStore.RESTORE
INSERT INTO subscriptions
    (id, project, source, subscriber, ttl, options, created_at, expires_at, socket_lease_until)
OVERRIDING SYSTEM VALUE
SELECT r.id, r.project, r.name, r.subscriber, r.ttl, r.options::jsonb, r.created_at, r.expires_at,
       now() + $10::int * interval '1 second'
FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[],
            $8::timestamptz[], $9::timestamptz[])
     AS r (id, queue_id, project, name, subscriber, ttl, options, created_at, expires_at)
WHERE r.expires_at > now()
  AND (r.queue_id = 0
       OR EXISTS (SELECT 1 FROM queues q
                  WHERE q.id = r.queue_id AND q.project = r.project AND q.name = r.name))
ON CONFLICT DO NOTHING
RETURNING id;

-- name: SubscriptionStore.ASK_TO_CONFIRM
UPDATE subscriptions
SET confirmation_until = GREATEST(date_trunc('second', now()) + $4 * interval '1 second',
                                  confirmation_until + interval '1 second')
WHERE project = $1 AND source = $2 AND id = $3
RETURNING confirmation_until;

-- name: SubscriptionStore.CONFIRM
UPDATE subscriptions SET confirmed = $4
WHERE project = $1 AND source = $2 AND id = $3 AND expires_at > now() AND subscriber = $6
  AND ($5::timestamptz IS NULL OR confirmation_until = $5::timestamptz);

-- name: SubscriptionStore.CREATE
INSERT INTO subscriptions AS s (project, source, subscriber, ttl, options, expires_at)
SELECT $1, $2, $3, $4::int, $5::text::json, now() + $4::int * interval '1 second'
WHERE EXISTS (SELECT 1 FROM subscriptions WHERE project = $1 AND source = $2 AND subscriber = $3
              AND expires_at > now())
   OR (SELECT count(*) FROM subscriptions WHERE project = $1 AND source = $2 AND expires_at > now()) < $6
   OR pigeon_refuse('403', $7)
ON CONFLICT (project, source, subscriber) DO UPDATE
SET ttl = EXCLUDED.ttl, options = EXCLUDED.options, created_at = now(), expires_at = EXCLUDED.expires_at,
    confirmed = false
WHERE s.expires_at <= now()
RETURNING id;

-- name: SubscriptionStore.DELETE
WITH dropped AS (DELETE FROM subscriptions WHERE project = $1 AND source = $2 AND id = $3 RETURNING id),
notifications_cancelled AS (
    DELETE FROM dispatch_groups g USING dropped d
    WHERE g.project = $1 AND g.merge_key = '-subscription:' || d.id AND NOT g.mergeable
      AND g.state = 'pending')
SELECT count(*) FROM dropped;

-- name: SubscriptionStore.DELETE_ALL
WITH dropped AS (DELETE FROM subscriptions WHERE project = $1 AND source = $2 RETURNING id),
notifications_cancelled AS (
    DELETE FROM dispatch_groups g USING dropped d
    WHERE g.project = $1 AND g.merge_key = '-subscription:' || d.id AND NOT g.mergeable
      AND g.state = 'pending')
SELECT count(*) FROM dropped;

-- name: SubscriptionStore.GET
SELECT id, source, subscriber, ttl, options::text AS options,
floor(extract(epoch FROM now() - created_at))::bigint AS age, confirmed,
floor(extract(epoch FROM now() - last_delivered_at))::bigint AS delivered_ago, failures,
floor(extract(epoch FROM now() - last_failed_at))::bigint AS failed_ago, last_error FROM subscriptions
WHERE project = $1 AND source = $2 AND id = $3 AND expires_at > now();

-- name: SubscriptionStore.GET_BY_SUBSCRIBER
SELECT id, source, subscriber, ttl, options::text AS options,
floor(extract(epoch FROM now() - created_at))::bigint AS age, confirmed,
floor(extract(epoch FROM now() - last_delivered_at))::bigint AS delivered_ago, failures,
floor(extract(epoch FROM now() - last_failed_at))::bigint AS failed_ago, last_error FROM subscriptions
WHERE project = $1 AND source = $2 AND subscriber = $3 AND expires_at > now();

-- name: SubscriptionStore.LIST
SELECT id, source, subscriber, ttl, options::text AS options,
floor(extract(epoch FROM now() - created_at))::bigint AS age, confirmed,
floor(extract(epoch FROM now() - last_delivered_at))::bigint AS delivered_ago, failures,
floor(extract(epoch FROM now() - last_failed_at))::bigint AS failed_ago, last_error FROM subscriptions
WHERE project = $1 AND source = $2 AND id > $3 AND expires_at > now()
ORDER BY id
LIMIT $4;

-- name: SubscriptionStore.UPDATE
UPDATE subscriptions
SET confirmed = confirmed AND ($4::text IS NULL OR $4::text = subscriber),
    subscriber = COALESCE($4, subscriber),
    ttl = COALESCE($5::int, ttl),
    expires_at = CASE WHEN $5::int IS NULL THEN expires_at ELSE now() + $5::int * interval '1 second' END,
    options = COALESCE($6::text::json, options)
WHERE project = $1 AND source = $2 AND id = $3 AND expires_at > now();

-- name: EndedSessionStore.END
INSERT INTO console_ended_sessions (session_key, forget_at) VALUES ($1, $2)
ON CONFLICT (session_key) DO UPDATE
SET forget_at = GREATEST(console_ended_sessions.forget_at, EXCLUDED.forget_at);

-- name: EndedSessionStore.ENDED
SELECT 1 FROM console_ended_sessions WHERE session_key = $1 AND forget_at > now();

-- name: WaitStore.LEASE
WITH w AS (
    SELECT q.id, n.project, n.name, COALESCE(q.wake_until > now(), false) AS live
    FROM unnest($1::text[], $2::text[]) AS n (project, name)
    JOIN queues q ON q.project = n.project AND q.name = n.name
    ORDER BY q.id
    FOR NO KEY UPDATE OF q)
UPDATE queues q SET wake_until = now() + $3::int * interval '1 second'
FROM w
WHERE q.id = w.id
RETURNING w.project, w.name, w.live;

-- name: WaitStore.NEXT_FREE
SELECT (q.metadata->>'_claim_wait_seconds')::int AS wait_default,
       ceil(extract(epoch FROM LEAST(c.due, d.due, r.due) - now()) * 1000)::bigint AS due_in_millis,
       r.scanned
FROM queues q
LEFT JOIN LATERAL (
    SELECT m.claim_expires_at AS due FROM messages m
    WHERE m.queue_id = q.id AND m.claim_id IS NOT NULL AND m.claim_expires_at > now()
    ORDER BY m.claim_expires_at LIMIT 1) c ON true
LEFT JOIN LATERAL (
    SELECT m.visible_at AS due FROM messages m
    WHERE m.queue_id = q.id AND m.claim_id IS NULL AND m.visible_at IS NOT NULL
      AND m.visible_at > now() AND m.visible_at < 'infinity' AND m.expires_at > now()
    ORDER BY m.visible_at LIMIT 1) d ON true
CROSS JOIN LATERAL (
    SELECT min(e.visible_at) FILTER (WHERE e.visible_at > now() AND e.visible_at < 'infinity') AS due,
           count(*) AS scanned
    FROM (SELECT m.visible_at FROM messages m
          WHERE m.queue_id = q.id AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now()
            AND m.expires_at > now()
          ORDER BY m.claim_expires_at LIMIT $3) e) r
WHERE q.project = $1 AND q.name = $2;
