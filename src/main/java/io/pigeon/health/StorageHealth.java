package io.pigeon.health;

import io.pigeon.message.FreeMessages;
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
    private record Operation(String name, String sql) {
    }

    private static final String PROBE_QUEUE = "(SELECT id FROM queues WHERE project = '' AND name = $1)";

    private static final List<Operation> OPERATIONS = List.of(
            new Operation("create_queue", "INSERT INTO queues (project, name) SELECT '', $1 WHERE $2::uuid IS NOT NULL"),
            new Operation("post_messages", "INSERT INTO messages (queue_id, client_id, ttl, body, expires_at) "
                    + "SELECT id, $2, 60, '\"probe\"', now() + interval '60 seconds' FROM queues "
                    + "WHERE project = '' AND name = $1"),
            new Operation("claim_messages", "UPDATE messages m SET claim_id = $2, claim_expires_at = now() + interval '60 seconds' "
                    + "WHERE m.queue_id = " + PROBE_QUEUE + " AND m.id = ANY(ARRAY("
                    + FreeMessages.lockOldest(PROBE_QUEUE, "10", "NULL::int") + "))"),
            new Operation("list_messages", "SELECT m.id FROM messages m WHERE m.queue_id = " + PROBE_QUEUE
                    + " AND $2::uuid IS NOT NULL ORDER BY m.id LIMIT 10"),
            new Operation("delete_messages", "DELETE FROM messages m WHERE m.queue_id = " + PROBE_QUEUE
                    + " AND m.claim_id = $2"),
            new Operation("delete_queue", "DELETE FROM queues WHERE project = '' AND name = $1 AND $2::uuid IS NOT NULL"));

    /** The report: {@code {"storage_reachable", "operation_status": {name: {"succeeded", "seconds", "ref"}}}}. */
    public record Report(boolean storage_reachable, Map<String, OperationStatus> operation_status) {
    }

    public record OperationStatus(boolean succeeded, double seconds, String ref) {
    }

    private final Pool pool;

    public StorageHealth(Pool pool) {
        this.pool = pool;
    }

    public Uni<Report> report() {
        // The default project ('') can only be reached by v1 calls without a project header, and the probe
        // queue's random name (which v1 names cannot have: it contains a dot) never collides with one.
        String probeQueue = "health." + UUID.randomUUID();
        UUID probeClaim = UUID.randomUUID();
        return pool.withConnection(connection -> connection.begin().flatMap(transaction ->
                        runAll(connection, probeQueue, probeClaim, 0, new LinkedHashMap<>())
                                .call(statuses -> transaction.rollback())))
                .ifNoItem().after(TIMEOUT).fail()
                .map(statuses -> new Report(true, statuses))
                .onFailure().recoverWithItem(new Report(false, Map.of()));
    }

    private Uni<Map<String, OperationStatus>> runAll(SqlConnection connection, String queue, UUID claim, int next,
            Map<String, OperationStatus> done) {
        if (next == OPERATIONS.size()) {
            return Uni.createFrom().item(done);
        }
        Operation operation = OPERATIONS.get(next);
        long start = System.nanoTime();
        return connection.preparedQuery(operation.sql()).execute(Tuple.of(queue, claim))
                .map(rows -> true)
                .onFailure().recoverWithItem(false)
                .flatMap(succeeded -> {
                    done.put(operation.name(), new OperationStatus(succeeded, (System.nanoTime() - start) / 1e9, null));
                    return succeeded ? runAll(connection, queue, claim, next + 1, done) : Uni.createFrom().item(done);
                });
    }
}
