package io.pigeon.queue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.config.PigeonConfig;
import io.pigeon.json.StrictJson;
import io.pigeon.pool.PoolClients;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.rules.Paging;
import io.pigeon.rules.Rejection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The rules of queues: paging bounds, metadata size and shape, existence. What a missing queue means is the
 * caller's to decide (each API version answers it its own way): reads of one queue answer an {@code Optional}.
 */
@ApplicationScoped
public class QueueService {

    private static final int PATCH_ATTEMPTS = 3;

    private final QueueStore store;
    private final QueueDatabases databases;
    private final PigeonConfig config;
    private final ReservedAttributes reserved;
    private final PoolClients poolClients;

    public QueueService(
            QueueStore store,
            QueueDatabases databases,
            PigeonConfig config,
            ReservedAttributes reserved,
            PoolClients poolClients) {
        this.poolClients = poolClients;
        this.store = store;
        this.databases = databases;
        this.config = config;
        this.reserved = reserved;
    }

    /** Creates the queue; true when it is new. */
    public Uni<Boolean> create(String project, QueueName name) {
        return PlacedQueue.forCreating(databases, project, name, null).chain(queue -> store.create(queue));
    }

    /**
     * Creates a queue with a metadata document (v2); its reserved attributes are checked. An existing queue is
     * left as it is. True when the queue is new.
     */
    public Uni<Boolean> create(String project, QueueName name, ObjectNode given) {
        reserved.validate(given);
        ObjectNode metadata = ReservedAttributes.withoutUnset(given);
        return PlacedQueue.forCreating(databases, project, name, ReservedAttributes.flavor(metadata))
                .call(queue -> deadLetterQueueBeside(project, name, metadata))
                .chain(queue -> store.create(queue, metadata.toString()));
    }

    /**
     * Places the dead-letter queue the metadata names beside the queue: the sweeper moves messages to it in one
     * statement, so both must live on one database. A dead-letter queue that lives elsewhere is refused (400).
     */
    private Uni<Void> deadLetterQueueBeside(String project, QueueName queue, ObjectNode metadata) {
        QueueName deadLetterQueue = ReservedAttributes.deadLetterQueue(metadata);
        if (deadLetterQueue == null) {
            return Uni.createFrom().voidItem();
        }
        return databases
                .placeBeside(project, deadLetterQueue.value(), queue.value())
                .map(beside -> {
                    if (!beside) {
                        throw Rejection.invalidRequest(
                                ReservedAttributes.DEAD_LETTER_QUEUE + " names queue " + deadLetterQueue
                                        + ", which lives on another pool than queue " + queue
                                        + ": a dead-letter queue must live on its "
                                        + "queue's pool (name a queue that does not exist yet, or one on the same pool).");
                    }
                    return null;
                });
    }

    public Uni<Boolean> exists(String project, QueueName name) {
        return PlacedQueue.of(databases, project, name).chain(queue -> store.exists(queue));
    }

    public Uni<Void> delete(String project, QueueName name) {
        return PlacedQueue.of(databases, project, name).chain(queue -> store.delete(queue));
    }

    /**
     * One page of the project's queues (or topics) in name order, after {@code marker}, whose names contain
     * {@code nameContains} when it is given (v2's {@code name} filter). Listed topics are named without their prefix.
     */
    public Uni<List<Queue>> list(
            String project, boolean topics, String marker, Integer limit, boolean detailed, String nameContains) {
        int pageSize = limit == null ? Paging.DEFAULT_PAGE_SIZE : limit;
        if (pageSize < 1 || pageSize > config.maxQueuesPerPage()) {
            throw Rejection.invalidRequest(
                    "Limit must be at least 1 and no greater than " + config.maxQueuesPerPage() + ".");
        }
        String after = marker == null ? "" : marker;
        if (!topics) {
            QueueStore.Listing ofQueues =
                    new QueueStore.Listing(project, after, QueueName.TOPIC_PREFIX, 1, pageSize, detailed, nameContains);
            return acrossDatabases(db -> store.list(db, ofQueues)).map(pages -> firstInNameOrder(pages, pageSize));
        }
        int prefix = QueueName.TOPIC_PREFIX.length();
        QueueStore.Listing ofTopics = new QueueStore.Listing(
                project,
                QueueName.TOPIC_PREFIX + after,
                QueueName.AFTER_TOPICS,
                prefix + 1,
                pageSize,
                detailed,
                nameContains);
        return acrossDatabases(db -> store.list(db, ofTopics)).map(pages -> firstInNameOrder(pages, pageSize).stream()
                .map(t -> new Queue(t.name().substring(prefix), t.metadataJson()))
                .toList());
    }

    /** How many queues the project has (whose names contain {@code nameContains}, when given); topics are not counted. */
    public Uni<Long> count(String project, String nameContains) {
        return acrossDatabases(db -> store.count(db, project, QueueName.TOPIC_PREFIX, nameContains))
                .map(counts -> counts.stream().mapToLong(Long::longValue).sum());
    }

    /**
     * {@code query} on the configured database and on every registered pool, at once (a queue lives on exactly one of
     * them). A pool that does not answer fails the whole: a listing is complete or not given.
     */
    private <T> Uni<List<T>> acrossDatabases(Function<SqlClient, Uni<T>> query) {
        return poolClients.onEvery(database -> query.apply(database.client()));
    }

    /** The first {@code size} queues, in name order, of pages that are each in name order. */
    private static List<Queue> firstInNameOrder(List<List<Queue>> pages, int size) {
        if (pages.size() == 1) {
            return pages.get(0);
        }
        return pages.stream()
                .flatMap(List::stream)
                .sorted(Comparator.comparing(Queue::name))
                .limit(size)
                .toList();
    }

    /** A listed queue's (or topic's) metadata with its reserved attributes (defaults where unset). */
    public ObjectNode withDefaults(Queue queue, boolean topic) {
        return reserved.withDefaults(StrictJson.readStoredObject(queue.metadataJson()), topic);
    }

    /**
     * The queue's (or topic's) metadata with its reserved attributes (defaults where unset); a missing one has only
     * those, as in Zaqar.
     */
    public Uni<ObjectNode> metadataWithDefaults(String project, QueueName name) {
        return metadata(project, name)
                .map(found -> reserved.withDefaults(
                        found.map(StrictJson::readStoredObject).orElseGet(JsonNodeFactory.instance::objectNode),
                        name.isTopic()));
    }

    /**
     * Applies a patch to the queue's metadata and answers the result with defaults; empty when there is no such
     * queue. Concurrent patches do not lose each other's changes: the write only succeeds against the metadata
     * the patch was applied to, and is retried otherwise.
     */
    public Uni<Optional<ObjectNode>> patchMetadata(String project, QueueName name, MetadataPatch patch) {
        return changeMetadata(
                project, name, current -> patch.applyTo(current, ReservedAttributes.PATCHABLE_WHEN_UNSET));
    }

    /**
     * Changes the queue's metadata by {@code change}, applied to the metadata as stored (it may change the object it is
     * given), with the same checks and the same retry as a patch; empty when there is no such queue. The SQS API sets
     * its attributes through it.
     */
    public Uni<Optional<ObjectNode>> changeMetadata(String project, QueueName name, UnaryOperator<ObjectNode> change) {
        return PlacedQueue.of(databases, project, name).chain(queue -> changeAttempt(queue, change, PATCH_ATTEMPTS));
    }

    private Uni<Optional<ObjectNode>> changeAttempt(
            PlacedQueue queue, UnaryOperator<ObjectNode> change, int attemptsLeft) {
        QueueName name = queue.name();
        return store.metadata(queue).flatMap(found -> {
            if (found.isEmpty()) {
                return Uni.createFrom().item(Optional.empty());
            }
            String current = found.get();
            ObjectNode patched = ReservedAttributes.withoutUnset(change.apply(StrictJson.readStoredObject(current)));
            String patchedJson = patched.toString();
            if (patchedJson.getBytes(StandardCharsets.UTF_8).length > config.maxQueueMetadata()) {
                throw Rejection.invalidRequest("Queue metadata is too large. Max size: " + config.maxQueueMetadata());
            }
            reserved.validate(patched);
            return deadLetterQueueBeside(queue.project(), name, patched)
                    .chain(() -> store.replaceMetadataIf(queue, current, patchedJson))
                    .flatMap(replaced -> {
                        if (replaced) {
                            return Uni.createFrom().item(Optional.of(reserved.withDefaults(patched, name.isTopic())));
                        }
                        if (attemptsLeft <= 1) {
                            throw new Rejection(
                                    Rejection.Reason.CONFLICT,
                                    "The " + name.kind()
                                            + "'s metadata kept changing while it was patched. Please try again.");
                        }
                        return changeAttempt(queue, change, attemptsLeft - 1);
                    });
        });
    }

    /** The queue's metadata as JSON text; empty when the queue does not exist. */
    public Uni<Optional<String>> metadata(String project, QueueName name) {
        return PlacedQueue.of(databases, project, name).chain(queue -> store.metadata(queue));
    }

    /** Replaces the metadata whole; false when the queue does not exist. */
    public Uni<Boolean> replaceMetadata(String project, QueueName name, ObjectNode given) {
        reserved.validate(given);
        ObjectNode metadata = ReservedAttributes.withoutUnset(given);
        return PlacedQueue.of(databases, project, name)
                .call(queue -> deadLetterQueueBeside(project, name, metadata))
                .chain(queue -> store.replaceMetadata(queue, metadata.toString()));
    }

    /** How many queues (and topics) one database holds: {@code pool} null for the configured database. */
    public record Held(String pool, long queues) {}

    /**
     * How many queues each database holds, the configured one first, then every registered pool: one count on each,
     * at once. Counted where the queues are, not from the catalogue's placements, which outlive deleted queues.
     */
    public Uni<List<Held>> heldPerDatabase() {
        return poolClients.onEvery(
                database -> store.countEvery(database.client()).map(count -> new Held(database.name(), count)));
    }

    public static Rejection queueNotFound(String project, QueueName name) {
        return Rejection.notFound(
                (name.isTopic() ? "Topic " : "Queue ") + name + " does not exist for project " + project);
    }
}
