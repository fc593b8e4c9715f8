package io.pigeon.queue;

import io.pigeon.dispatch.NotificationFanOut;
import io.pigeon.quota.Quotas;
import io.pigeon.storage.QueueRows;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The SQL of the queue catalogue. Every statement is scoped by project. */
@ApplicationScoped
public class QueueStore {

    /**
     * The guard of a queue's creation: the queue exists already, or the project is under its queue quota (the
     * count runs only when the queue is new; the refusal only when the quota is reached). Concurrent creations
     * may pass the quota by a few.
     */
    static final String WITHIN_QUEUE_QUOTA =
            """
            (EXISTS (SELECT 1 FROM queues WHERE project = $1 AND name = $2)
             OR (SELECT count(*) FROM queues WHERE project = $1) < %s OR pigeon_refuse('403', %s))""";

    private static final String CREATE =
            """
            INSERT INTO queues (project, name) SELECT $1, $2 WHERE %s
            ON CONFLICT (project, name) DO NOTHING
            RETURNING id"""
                    .formatted(WITHIN_QUEUE_QUOTA.formatted("$3", "$4"));

    private static final String CREATE_WITH_METADATA =
            """
            INSERT INTO queues (project, name, metadata) SELECT $1, $2, $5::text::json WHERE %s
            ON CONFLICT (project, name) DO NOTHING
            RETURNING id"""
                    .formatted(WITHIN_QUEUE_QUOTA.formatted("$3", "$4"));

    private static final String EXISTS = "SELECT 1 FROM queues WHERE project = $1 AND name = $2";

    private static final String LIST =
            """
            SELECT name, CASE WHEN $4 THEN metadata::text END AS metadata
            FROM queues
            WHERE project = $1 AND name > $2 AND name < $6 AND ($5::text IS NULL OR strpos(substr(name, $7), $5) > 0)
            ORDER BY name
            LIMIT $3""";

    private static final String COUNT =
            """
            SELECT count(*) FROM queues
            WHERE project = $1 AND name < $3 AND ($2::text IS NULL OR strpos(name, $2) > 0)""";

    // Every queue (and topic) a database holds, for the console's operator view: the health check's probe queue lives
    // only inside a transaction it rolls back. Its cost grows with the database's queues, paid only when an operator
    // opens that page.
    private static final String COUNT_EVERY = "SELECT count(*) FROM queues";

    private static final String METADATA = "SELECT metadata::text FROM queues WHERE project = $1 AND name = $2";

    // Each change of the metadata is dated by the database's clock: the SQS API shows it as LastModifiedTimestamp.
    private static final String REPLACE_METADATA =
            """
            UPDATE queues SET metadata = $3::text::json, metadata_changed_at = now()
            WHERE project = $1 AND name = $2""";

    private static final String REPLACE_METADATA_IF =
            """
            UPDATE queues SET metadata = $4::text::json, metadata_changed_at = now()
            WHERE project = $1 AND name = $2 AND metadata::text = $3""";

    private final Quotas quotas;

    public QueueStore(Quotas quotas) {
        this.quotas = quotas;
    }

    /** Creates the queue; true when it was created, false when it already existed. */
    public Uni<Boolean> create(PlacedQueue queue) {
        return queue.db().preparedQuery(CREATE).execute(creation(queue)).map(rows -> rows.rowCount() == 1);
    }

    /** $1 to $4 of both creating statements: the queue, then its project's queue quota and the refusal past it. */
    private Tuple creation(PlacedQueue queue) {
        return Tuple.of(queue.project(), queue.storedName(), quotas.limits().maxQueuesPerProject(), quotas.queues());
    }

    public Uni<Boolean> exists(PlacedQueue queue) {
        return queue.db()
                .preparedQuery(EXISTS)
                .execute(Tuple.of(queue.project(), queue.storedName()))
                .map(rows -> rows.size() == 1);
    }

    private static final String DELETE =
            """
            WITH dropped AS (DELETE FROM subscriptions WHERE project = $1 AND source = $2 RETURNING id),
            %s,
            gone AS (DELETE FROM queues WHERE project = $1 AND name = $2 RETURNING id),
            %s
            INSERT INTO dropped_queues (queue_id) SELECT id FROM gone"""
                    .formatted(NotificationFanOut.CANCEL_DROPPED, QueueRows.deleteAll("ARRAY(SELECT id FROM gone)"));

    /**
     * Deletes the queue with its messages and claims, and its subscriptions (which name it rather than reference it)
     * with their pending notifications, in one statement. The queue's id is recorded so that the sweeper deletes, a
     * while later, the rows of a post or claim that raced this delete (see migration V10: no foreign key does it).
     */
    public Uni<Void> delete(PlacedQueue queue) {
        return queue.db()
                .preparedQuery(DELETE)
                .execute(Tuple.of(queue.project(), queue.storedName()))
                .replaceWithVoid();
    }

    /**
     * What a listing of a project's queues asks for: up to {@code limit} queues whose stored names sort after
     * {@code after} and before {@code before} (byte order), metadata if asked, and whose names from character
     * {@code from} (1-based) on contain {@code nameContains} when it is given. The record owns the order of the
     * statement's parameters, which is not the order they are declared in.
     */
    public record Listing(
            String project,
            String after,
            String before,
            int from,
            int limit,
            boolean withMetadata,
            String nameContains) {
        Tuple parameters() {
            return Tuple.from(Arrays.asList(project, after, limit, withMetadata, nameContains, before, from));
        }
    }

    /** One page of the project's queues on {@code db}, in name order. */
    public Uni<List<Queue>> list(SqlClient db, Listing listing) {
        return db.preparedQuery(LIST).execute(listing.parameters()).map(QueueStore::toQueues);
    }

    /** How many queues the project has whose stored names sort before {@code before} and contain {@code nameContains}. */
    public Uni<Long> count(SqlClient db, String project, String before, String nameContains) {
        return db.preparedQuery(COUNT)
                .execute(Tuple.of(project, nameContains, before))
                .map(rows -> rows.iterator().next().getLong(0));
    }

    /** How many queues (and topics) of every project {@code db} holds. */
    public Uni<Long> countEvery(SqlClient db) {
        return db.preparedQuery(COUNT_EVERY)
                .execute()
                .map(rows -> rows.iterator().next().getLong(0));
    }

    /** Creates the queue with its metadata; true when it was created, false when it already existed. */
    public Uni<Boolean> create(PlacedQueue queue, String metadataJson) {
        return queue.db()
                .preparedQuery(CREATE_WITH_METADATA)
                .execute(creation(queue).addString(metadataJson))
                .map(rows -> rows.rowCount() == 1);
    }

    /** Replaces the metadata only if it still is {@code expectedJson}; false when it changed or the queue is gone. */
    public Uni<Boolean> replaceMetadataIf(PlacedQueue queue, String expectedJson, String metadataJson) {
        return queue.db()
                .preparedQuery(REPLACE_METADATA_IF)
                .execute(Tuple.of(queue.project(), queue.storedName(), expectedJson, metadataJson))
                .map(rows -> rows.rowCount() == 1);
    }

    /** The metadata JSON text, or empty when the queue does not exist. */
    public Uni<Optional<String>> metadata(PlacedQueue queue) {
        return queue.db()
                .preparedQuery(METADATA)
                .execute(Tuple.of(queue.project(), queue.storedName()))
                .map(rows -> rows.size() == 0
                        ? Optional.empty()
                        : Optional.of(rows.iterator().next().getString(0)));
    }

    /** Replaces the metadata whole; false when the queue does not exist. */
    public Uni<Boolean> replaceMetadata(PlacedQueue queue, String metadataJson) {
        return queue.db()
                .preparedQuery(REPLACE_METADATA)
                .execute(Tuple.of(queue.project(), queue.storedName(), metadataJson))
                .map(rows -> rows.rowCount() == 1);
    }

    private static List<Queue> toQueues(RowSet<Row> rows) {
        List<Queue> queues = new ArrayList<>(rows.size());
        for (Row row : rows) {
            queues.add(new Queue(row.getString("name"), row.getString("metadata")));
        }
        return queues;
    }
}
