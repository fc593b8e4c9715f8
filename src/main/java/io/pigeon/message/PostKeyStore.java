package io.pigeon.message;

import io.pigeon.queue.IdempotencySettings;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.ReservedAttributes;
import io.pigeon.quota.QuotaSettings;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL of idempotent posts (migration V18): the keys a queue remembers, taken and then filled with the ids of
 * what their post stored, both within the post's transaction. Posts without keys never come here.
 */
@ApplicationScoped
public class PostKeyStore {

    /** A remembered Idempotency-Key of a post. */
    static final String KEY = "key";

    /** A remembered dedup_id of a message. */
    static final String DEDUP = "dedup";

    /**
     * Takes the keys of one post ($5 kinds, $6 keys; distinct, at most one of kind 'key', which remembers the post's
     * digest $7) for the
     * queue's window: each key not remembered, or whose window has ended, is (re)inserted with no ids and comes back
     * with null ids, to be filled by {@link #REMEMBER} before the transaction commits; each key remembered comes back
     * with the ids it remembers. A key another transaction is taking is waited for (the primary key), so concurrent
     * repeats store once. Every key is returned; a remembered one is rewritten unchanged (ON CONFLICT DO UPDATE, so
     * that it is locked and returned, latest committed version). Keys are taken in one order so that two posts sharing
     * keys cannot deadlock. The window is the queue's _dedup_window_seconds clamped to 1..$4, else $3 (a queue not
     * created yet, or without it). The keys taken anew are counted against the project's quota by {@link #REMEMBER},
     * so a repeat of remembered keys is answered whatever the project holds.
     */
    static final String TAKE =
            """
            WITH dedup_window AS (
                SELECT COALESCE(
                    (SELECT CASE WHEN json_typeof(metadata->'%1$s') = 'number'
                                 THEN LEAST(GREATEST((metadata->>'%1$s')::numeric, 1), $4)::int END
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
            SELECT kind, key, request_hash, message_ids FROM taken"""
                    .formatted(ReservedAttributes.DEDUP_WINDOW_SECONDS);

    /**
     * How the queue deduplicates (its {@code _content_based_deduplication} and {@code _deduplication_scope}), read in
     * the keyed post's transaction before its keys are taken; and the transaction marked as deduplicating, so that
     * its post may store in a queue that deduplicates by content (see MessageStore.SEALED_AS_THE_QUEUE_ASKS). Both
     * false without the queue.
     */
    static final String SETTINGS =
            """
            SELECT set_config('pigeon.deduplicating', 'on', true) AS marked,
                   COALESCE((SELECT (metadata->'%s')::text = 'true'
                             FROM queues WHERE project = $1 AND name = $2), false) AS content_based,
                   COALESCE((SELECT metadata->>'%s' = '%s'
                             FROM queues WHERE project = $1 AND name = $2), false) AS per_group"""
                    .formatted(
                            ReservedAttributes.CONTENT_BASED_DEDUPLICATION,
                            ReservedAttributes.DEDUPLICATION_SCOPE,
                            ReservedAttributes.SCOPE_GROUP);

    /**
     * Makes a project's posts that took keys count them one at a time (migration V25), for the rest of their
     * transactions: sent just before {@link #REMEMBER}, in a statement of its own so that REMEMBER's snapshot, taken
     * once the lock is held, sees every count committed before. Only the last statement and the commit of a keyed post
     * wait here; a project's other posts, and other projects', do not.
     */
    static final String LOCK_PROJECT = "SELECT pg_advisory_xact_lock(hashtextextended('pigeon.post-keys:' || $1, 0))";

    /**
     * Fills the keys this transaction took ($3 kinds, $4 keys) with what the post answered: a post's key all its ids
     * ($5, in request order), a dedup_id the id of its message ($6, one per key; ignored for the post's key); and
     * counts them for the project (migration V25), refused ($8, 429) when the project would hold more than $7: the
     * keys it holds are never more than its quota, concurrent posts included (they wait for {@link #LOCK_PROJECT}).
     */
    static final String REMEMBER =
            """
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
                   AS within, (SELECT count(*) FROM counted) AS counted""";

    private final int defaultWindow;
    private final int maxWindow;
    private final int maxKeys;
    private final String overQuota;

    public PostKeyStore(QuotaSettings quotaSettings, IdempotencySettings idempotencySettings) {
        this.maxWindow = idempotencySettings.maxWindow();
        this.defaultWindow = Math.min(idempotencySettings.defaultWindow(), maxWindow);
        this.maxKeys = quotaSettings.maxPostKeysPerProject();
        this.overQuota = "The project would hold more than " + maxKeys
                + " remembered Idempotency-Keys and dedup_ids (pigeon.quotas.max-post-keys-per-project): they are "
                + "forgotten as their queues' windows end; post again then, or without them.";
    }

    /** A key as the statements name it. */
    record Taken(String kind, String key) {}

    /** What a key remembers: the digest of its post (a post's key) and its ids; null ids: taken by this post. */
    record Remembered(byte[] requestHash, long[] ids) {}

    /** How {@code queue} deduplicates (none when it does not exist yet), marking the transaction as deduplicating. */
    Uni<DeduplicationKeys.Settings> settings(PlacedQueue queue) {
        return queue.db()
                .preparedQuery(SETTINGS)
                .execute(Tuple.of(queue.project(), queue.storedName()))
                .map(rows -> {
                    Row row = rows.iterator().next();
                    return new DeduplicationKeys.Settings(row.getBoolean("content_based"), row.getBoolean("per_group"));
                });
    }

    /** Takes {@code keys} (distinct) for {@code queue}'s window; what each remembers. */
    Uni<Map<Taken, Remembered>> take(PlacedQueue queue, List<Taken> keys, byte[] requestHash) {
        String[] kinds = new String[keys.size()];
        String[] names = new String[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            kinds[i] = keys.get(i).kind();
            names[i] = keys.get(i).key();
        }
        return queue.db()
                .preparedQuery(TAKE)
                .execute(Tuple.of(queue.project(), queue.storedName(), defaultWindow, maxWindow)
                        .addArrayOfString(kinds)
                        .addArrayOfString(names)
                        .addValue(requestHash == null ? null : io.vertx.core.buffer.Buffer.buffer(requestHash)))
                .map(rows -> {
                    Map<Taken, Remembered> remembered = new HashMap<>();
                    for (Row row : rows) {
                        Long[] ids = row.getArrayOfLongs("message_ids");
                        Buffer hash = row.getBuffer("request_hash");
                        remembered.put(
                                new Taken(row.getString("kind"), row.getString("key")),
                                new Remembered(
                                        hash == null ? null : hash.getBytes(), ids == null ? null : unboxed(ids)));
                    }
                    return remembered;
                });
    }

    /**
     * Fills the keys this post took: its key with {@code answer}, each dedup_id with its message's id; and counts them
     * for the project, failing with the quota's refusal (nothing of the post stays) past it.
     */
    Uni<Void> remember(PlacedQueue queue, List<Taken> taken, long[] answer, List<Long> dedupIdsStored) {
        List<String> kinds = new ArrayList<>(taken.size());
        List<String> keys = new ArrayList<>(taken.size());
        Long[] ids = new Long[taken.size()];
        int next = 0;
        for (int i = 0; i < taken.size(); i++) {
            kinds.add(taken.get(i).kind());
            keys.add(taken.get(i).key());
            ids[i] = KEY.equals(taken.get(i).kind()) ? 0L : dedupIdsStored.get(next++);
        }
        return queue.db()
                .preparedQuery(LOCK_PROJECT)
                .execute(Tuple.of(queue.project()))
                .chain(() -> queue.db()
                        .preparedQuery(REMEMBER)
                        .execute(Tuple.of(queue.project(), queue.storedName())
                                .addArrayOfString(kinds.toArray(String[]::new))
                                .addArrayOfString(keys.toArray(String[]::new))
                                .addArrayOfLong(MessageStore.boxed(answer))
                                .addArrayOfLong(ids)
                                .addInteger(maxKeys)
                                .addString(overQuota)))
                .replaceWithVoid();
    }

    private static long[] unboxed(Long[] ids) {
        long[] own = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            own[i] = ids[i];
        }
        return own;
    }
}
