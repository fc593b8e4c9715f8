#!/usr/bin/env bash
# The database's own limit for Pigeon's full cycle: the statements of the hot path (post 10 in one
# INSERT from arrays, claim 10 with FOR UPDATE SKIP LOCKED, delete those 10 by ids) run through pgbench,
# no HTTP, against the same PostgreSQL and schema Pigeon uses. Prints messages/s per client count, to
# set beside `./mvnw -Pbench -Dbench.scenarios=cycle`.
#
#   PGHOST=localhost PGUSER=pigeon PGPASSWORD=... PGDATABASE=pigeon bash src/test/bench/sql-ceiling.sh [seconds] [clients...]
#
# The database must hold Pigeon's schema (start Pigeon against it once). The statements mirror
# MessageStore.POST, ClaimStore.CREATE (with FreeMessages.lockOldest) and MessageStore.DELETE_BY_IDS.
set -euo pipefail
seconds=${1:-15}
shift || true
clients=("$@")
[ ${#clients[@]} -gt 0 ] || clients=(1 4 16)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

psql -q -v ON_ERROR_STOP=1 <<'SQL'
DELETE FROM queues WHERE project = 'sql-ceiling';
INSERT INTO queues (project, name) SELECT 'sql-ceiling', 'cycle-' || g FROM generate_series(1, 64) g;
SQL

bodies=$(for i in $(seq 0 9); do printf "'{\"event\": \"bench\", \"n\": %d, \"pad\": \"0123456789abcdef\"}'," "$i"; done)
cat > "$work/cycle.sql" <<SQL
INSERT INTO messages (queue_id, client_id, ttl, body, expires_at)
SELECT q.id, '3381af92-2b9e-11e3-b191-71861300734c', t.ttl, t.body, now() + t.ttl * interval '1 second'
FROM queues q, unnest(ARRAY[3600,3600,3600,3600,3600,3600,3600,3600,3600,3600], ARRAY[${bodies%,}]::text[])
     WITH ORDINALITY AS t (ttl, body, ord)
WHERE q.project = 'sql-ceiling' AND q.name = 'cycle-' || (:client_id + 1)
ORDER BY t.ord
RETURNING id;
WITH q AS (SELECT id, NULL::int AS max_claims FROM queues WHERE project = 'sql-ceiling' AND name = 'cycle-' || (:client_id + 1)),
claimed AS (
    UPDATE messages m
    SET claim_id = '00000000-0000-0000-0000-000000000001', claim_expires_at = now() + 60 * interval '1 second',
        claim_count = m.claim_count + 1,
        ttl = GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + 120, 1209600)),
        expires_at = m.created_at + GREATEST(m.ttl, LEAST(ceil(extract(epoch FROM now() - m.created_at))::int + 120, 1209600)) * interval '1 second'
    FROM q
    WHERE m.queue_id = q.id AND m.id = ANY(ARRAY(
        SELECT f.id FROM (
            SELECT u.id FROM (
                SELECT m.id FROM messages m
                WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NULL AND m.expires_at > now()
                  AND (m.visible_at IS NULL OR m.visible_at <= now())
                ORDER BY m.id LIMIT 10 FOR UPDATE OF m SKIP LOCKED) u
            UNION ALL
            SELECT r.id FROM (
                SELECT m.id FROM messages m
                WHERE m.queue_id = (SELECT id FROM q) AND m.claim_id IS NOT NULL AND m.claim_expires_at <= now()
                  AND m.expires_at > now() AND (m.visible_at IS NULL OR m.visible_at <= now())
                ORDER BY m.claim_expires_at LIMIT 10 FOR UPDATE OF m SKIP LOCKED) r
        ) f ORDER BY f.id LIMIT 10))
    RETURNING m.id),
recorded AS (
    INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
    SELECT gen_random_uuid(), q.id, 60, 60, now() + interval '60 seconds', ARRAY(SELECT id FROM claimed ORDER BY id)
    FROM q WHERE EXISTS (SELECT 1 FROM claimed))
SELECT array_agg(id) AS ids FROM claimed \gset
DELETE FROM messages m USING queues q
WHERE q.project = 'sql-ceiling' AND q.name = 'cycle-' || (:client_id + 1) AND m.queue_id = q.id
  AND m.id = ANY(:ids::bigint[]);
SQL

echo "SQL ceiling of the full cycle (post 10, claim 10, delete 10), ${seconds} s per run"
for c in "${clients[@]}"; do
    tps=$(pgbench -n -M prepared -c "$c" -j "$c" -T "$seconds" -f "$work/cycle.sql" 2>"$work/pgbench.err" \
        | awk '/^tps = / {print $3}')
    printf "clients %3d  %10.0f messages/s\n" "$c" "$(echo "$tps * 10" | bc -l)"
done
psql -q -c "DELETE FROM queues WHERE project = 'sql-ceiling'"
[ -s "$work/pgbench.err" ] && grep -m3 -i error "$work/pgbench.err" >&2 || true
