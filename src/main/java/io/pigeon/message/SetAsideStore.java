package io.pigeon.message;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

/**
 * The SQL that sets unreadable messages aside (table {@code messages_set_aside}, migration V14): rows whose sealed
 * body does not open, taken out of their queue as they were stored, so that no claim or pop takes them again.
 */
@ApplicationScoped
public class SetAsideStore {

    private static final String COLUMNS = "queue_id, id, client_id, ttl, body, key_id, created_at, expires_at";

    /** Rows a pop has deleted already ($1..$8: their columns as arrays). */
    private static final String KEEP_POPPED =
            """
            INSERT INTO messages_set_aside (%1$s)
            SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::uuid[], $4::int[], $5::text[], $6::text[],
                                 $7::timestamptz[], $8::timestamptz[])
            ON CONFLICT DO NOTHING"""
                    .formatted(COLUMNS);

    // Rows ($2) of queue $1 that claims ($3) have just taken: out of the queue, out of the ids their claims recorded;
    // a claim left without a message is deleted (its caller was told it got none). The two claim statements act on
    // disjoint rows.
    private static final String SET_ASIDE_CLAIMED =
            """
            WITH aside AS (
                DELETE FROM messages m
                WHERE m.queue_id = $1 AND m.id = ANY($2::bigint[]) AND m.claim_id = ANY($3::uuid[])
                RETURNING %1$s),
            kept AS (
                INSERT INTO messages_set_aside (%1$s) SELECT %1$s FROM aside ON CONFLICT DO NOTHING),
            trimmed AS (
                UPDATE claims c SET message_ids = ARRAY(SELECT x FROM unnest(c.message_ids) AS x WHERE x <> ALL($2::bigint[]))
                WHERE c.queue_id = $1 AND c.id = ANY($3::uuid[]) AND NOT c.message_ids <@ $2::bigint[]),
            emptied AS (
                DELETE FROM claims c
                WHERE c.queue_id = $1 AND c.id = ANY($3::uuid[]) AND c.message_ids <@ $2::bigint[])
            SELECT count(*) AS set_aside FROM aside"""
                    .formatted(COLUMNS);

    /** Rows ($2) of queue $1 waiting to be sealed again for it (a dead-letter move), which do not open. */
    private static final String SET_ASIDE_RESEALING =
            """
            WITH aside AS (
                DELETE FROM messages m
                WHERE m.queue_id = $1 AND m.id = ANY($2::bigint[]) AND m.visible_at = 'infinity'
                RETURNING %1$s)
            INSERT INTO messages_set_aside (%1$s) SELECT %1$s FROM aside ON CONFLICT DO NOTHING"""
                    .formatted(COLUMNS);

    /** Keeps the rows a pop deleted (read with every column of the table), in the same database. */
    public Uni<Void> keepPopped(SqlClient db, List<Row> rows) {
        int n = rows.size();
        Long[] queueIds = new Long[n];
        Long[] ids = new Long[n];
        UUID[] clientIds = new UUID[n];
        Integer[] ttls = new Integer[n];
        String[] bodies = new String[n];
        String[] keyIds = new String[n];
        OffsetDateTime[] created = new OffsetDateTime[n];
        OffsetDateTime[] expires = new OffsetDateTime[n];
        for (int i = 0; i < n; i++) {
            Row row = rows.get(i);
            queueIds[i] = row.getLong("queue_id");
            ids[i] = row.getLong("id");
            clientIds[i] = row.getUUID("client_id");
            ttls[i] = row.getInteger("ttl");
            bodies[i] = row.getString("body");
            keyIds[i] = row.getString("key_id");
            created[i] = row.getOffsetDateTime("created_at");
            expires[i] = row.getOffsetDateTime("expires_at");
        }
        return db.preparedQuery(KEEP_POPPED)
                .execute(Tuple.tuple()
                        .addArrayOfLong(queueIds)
                        .addArrayOfLong(ids)
                        .addArrayOfUUID(clientIds)
                        .addArrayOfInteger(ttls)
                        .addArrayOfString(bodies)
                        .addArrayOfString(keyIds)
                        .addArrayOfOffsetDateTime(created)
                        .addArrayOfOffsetDateTime(expires))
                .replaceWithVoid();
    }

    /** Sets aside rows {@code ids} of queue {@code queueId} that claims {@code claimIds} have just taken. */
    public Uni<Void> setAsideClaimed(SqlClient db, long queueId, long[] ids, UUID[] claimIds) {
        return db.preparedQuery(SET_ASIDE_CLAIMED)
                .execute(Tuple.of(queueId)
                        .addArrayOfLong(MessageStore.boxed(ids))
                        .addArrayOfUUID(claimIds))
                .replaceWithVoid();
    }

    /** Sets aside rows {@code ids} of queue {@code queueId} that wait to be sealed again and do not open. */
    public Uni<Void> setAsideResealing(SqlClient db, long queueId, long[] ids) {
        return db.preparedQuery(SET_ASIDE_RESEALING)
                .execute(Tuple.of(queueId).addArrayOfLong(MessageStore.boxed(ids)))
                .replaceWithVoid();
    }
}
