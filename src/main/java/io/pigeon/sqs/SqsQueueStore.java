package io.pigeon.sqs;

import io.pigeon.queue.PlacedQueue;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The SQL only the SQS API sends about queues: a queue's description, and its listings by prefix and dead letters. */
@ApplicationScoped
public class SqsQueueStore {

    /** A queue's metadata and its times, as SQS shows them (whole seconds since the epoch, the database's clock). */
    public record Described(String metadataJson, long created, long modified) {}

    private static final String DESCRIBE =
            """
            SELECT metadata::text, floor(extract(epoch FROM created_at))::bigint,
                   floor(extract(epoch FROM coalesce(metadata_changed_at, created_at)))::bigint
            FROM queues WHERE project = $1 AND name = $2""";

    // Queues only: every stored topic name starts with the topic prefix ($3), above every queue name.
    private static final String LIST =
            """
            SELECT name FROM queues
            WHERE project = $1 AND name > $2 AND name < $3 AND starts_with(name, $4)
            ORDER BY name
            LIMIT $5""";

    // Reads the project's queues (bounded by its queue quota) rather than an index of dead-letter targets: a rare call.
    private static final String DEAD_LETTER_SOURCES =
            """
            SELECT name FROM queues
            WHERE project = $1 AND metadata ->> '_dead_letter_queue' = $2 AND name > $3 AND name < $4
            ORDER BY name
            LIMIT $5""";

    public Uni<Optional<Described>> describe(PlacedQueue queue) {
        return queue.db()
                .preparedQuery(DESCRIBE)
                .execute(Tuple.of(queue.project(), queue.storedName()))
                .map(rows -> {
                    if (rows.size() == 0) {
                        return Optional.empty();
                    }
                    Row row = rows.iterator().next();
                    return Optional.of(new Described(row.getString(0), row.getLong(1), row.getLong(2)));
                });
    }

    /** Up to {@code limit} names of the project's queues on {@code db} after {@code after} starting with {@code prefix}. */
    public Uni<List<String>> list(SqlClient db, String project, String after, String before, String prefix, int limit) {
        return db.preparedQuery(LIST)
                .execute(Tuple.of(project, after, before, prefix, limit))
                .map(SqsQueueStore::names);
    }

    /** Up to {@code limit} names of the project's queues on {@code db} after {@code after} whose dead-letter queue is {@code target}. */
    public Uni<List<String>> deadLetterSources(
            SqlClient db, String project, String target, String after, String before, int limit) {
        return db.preparedQuery(DEAD_LETTER_SOURCES)
                .execute(Tuple.of(project, target, after, before, limit))
                .map(SqsQueueStore::names);
    }

    private static List<String> names(RowSet<Row> rows) {
        List<String> names = new ArrayList<>(rows.size());
        for (Row row : rows) {
            names.add(row.getString(0));
        }
        return names;
    }
}
