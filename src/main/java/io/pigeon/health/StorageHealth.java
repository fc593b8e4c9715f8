package io.pigeon.health;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.pigeon.message.FreeMessages;
import io.pigeon.pool.PoolClients;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The operator's detailed storage health: whether the database answers, and how long each kind of queue
 * operation takes right now. The operations run for real inside one transaction that is rolled back, so
 * they leave nothing behind and touch no one's queues.
 */
@ApplicationScoped
public class StorageHealth {

    static final Duration TIMEOUT = Duration.ofSeconds(5);

    /** One timed operation: name and SQL ($1 is a probe queue name, $2 a probe claim id). */
    private record Operation(String name, String sql) {}

    private static final String PROBE_QUEUE = "(SELECT id FROM queues WHERE project = '' AND name = $1)";

    private static final List<Operation> OPERATIONS = List.of(
            new Operation(
                    "create_queue", "INSERT INTO queues (project, name) SELECT '', $1 WHERE $2::uuid IS NOT NULL"),
            new Operation(
                    "post_messages",
                    "INSERT INTO messages (queue_id, client_id, ttl, body, expires_at) "
                            + "SELECT id, $2, 60, '\"probe\"', now() + interval '60 seconds' FROM queues "
                            + "WHERE project = '' AND name = $1"),
            new Operation(
                    "claim_messages",
                    "UPDATE messages m SET claim_id = $2, claim_expires_at = now() + interval '60 seconds' "
                            + "WHERE m.queue_id = " + PROBE_QUEUE + " AND m.id = ANY(ARRAY("
                            + FreeMessages.lockOldest(PROBE_QUEUE, "10", "NULL::int") + "))"),
            new Operation(
                    "list_messages",
                    "SELECT m.id FROM messages m WHERE m.queue_id = " + PROBE_QUEUE
                            + " AND $2::uuid IS NOT NULL ORDER BY m.id LIMIT 10"),
            new Operation(
                    "delete_messages",
                    "DELETE FROM messages m WHERE m.queue_id = " + PROBE_QUEUE + " AND m.claim_id = $2"),
            new Operation(
                    "delete_queue", "DELETE FROM queues WHERE project = '' AND name = $1 AND $2::uuid IS NOT NULL"));

    /**
     * The report: {@code {"storage_reachable", "operation_status": {name: {"succeeded", "seconds", "ref"}}}} for the
     * configured database, which is also the catalogue ({@code catalog_reachable}, Zaqar's name), and the same for
     * each registered pool under {@code pools} (Zaqar puts each pool's report beside the catalogue's, keyed by the
     * pool's name; a pool named like a field would be lost there).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Report(
            boolean storage_reachable,
            Map<String, OperationStatus> operation_status,
            Boolean catalog_reachable,
            Map<String, Report> pools) {}

    public record OperationStatus(boolean succeeded, double seconds, String ref) {}

    private final Pool pool;
    private final PoolClients poolClients;

    public StorageHealth(Pool pool, PoolClients poolClients) {
        this.pool = pool;
        this.poolClients = poolClients;
    }

    /** The configured database's report, with every registered pool's, probed at once. */
    public Uni<Report> report() {
        return poolClients
                .everyDatabase()
                .chain(databases -> Uni.join()
                        .all(databases.stream()
                                .map(database -> probe(database.client()))
                                .toList())
                        .andFailFast()
                        .map(reports -> {
                            Report home = reports.get(0);
                            if (!home.storage_reachable()) {
                                return new Report(false, Map.of(), false, Map.of());
                            }
                            Map<String, Report> byPool = new LinkedHashMap<>();
                            for (int i = 1; i < databases.size(); i++) {
                                byPool.put(databases.get(i).name(), reports.get(i));
                            }
                            return new Report(true, home.operation_status(), true, byPool);
                        }))
                // The catalogue is the configured database: it did not answer.
                .onFailure()
                .recoverWithItem(new Report(false, Map.of(), false, Map.of()));
    }

    /** One database's report: the operations, run in a transaction that is rolled back. */
    private static Uni<Report> probe(Pool db) {
        // The default project ('') can only be reached by v1 calls without a project header, and the probe
        // queue's random name (which v1 names cannot have: it contains a dot) never collides with one.
        String probeQueue = "health." + UUID.randomUUID();
        UUID probeClaim = UUID.randomUUID();
        return db.withConnection(connection -> connection.begin().flatMap(transaction -> runAll(
                                connection, probeQueue, probeClaim, 0, new LinkedHashMap<>())
                        .call(statuses -> transaction.rollback())))
                .ifNoItem()
                .after(TIMEOUT)
                .fail()
                .map(statuses -> new Report(true, statuses, null, null))
                .onFailure()
                .recoverWithItem(new Report(false, Map.of(), null, null));
    }

    private static Uni<Map<String, OperationStatus>> runAll(
            SqlConnection connection, String queue, UUID claim, int next, Map<String, OperationStatus> done) {
        if (next == OPERATIONS.size()) {
            return Uni.createFrom().item(done);
        }
        Operation operation = OPERATIONS.get(next);
        long start = System.nanoTime();
        return connection
                .preparedQuery(operation.sql())
                .execute(Tuple.of(queue, claim))
                .map(rows -> true)
                .onFailure()
                .recoverWithItem(false)
                .flatMap(succeeded -> {
                    done.put(operation.name(), new OperationStatus(succeeded, (System.nanoTime() - start) / 1e9, null));
                    return succeeded
                            ? runAll(connection, queue, claim, next + 1, done)
                            : Uni.createFrom().item(done);
                });
    }
}
