package io.pigeon.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.rules.Rejection;
import io.pigeon.api.JsonBodies;
import io.pigeon.config.PigeonConfig;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/** The rules of queues: names, paging bounds, metadata size and shape, existence. */
@ApplicationScoped
public class QueueService {

    static final int DEFAULT_PAGE_SIZE = 10;

    private final QueueStore store;
    private final PigeonConfig config;
    private final ReservedAttributes reserved;

    public QueueService(QueueStore store, PigeonConfig config, ReservedAttributes reserved) {
        this.store = store;
        this.config = config;
        this.reserved = reserved;
    }

    /** Creates the queue; true when it is new. */
    public Uni<Boolean> create(String project, String name) {
        QueueNames.validate(name);
        return store.create(project, name);
    }

    public Uni<Boolean> exists(String project, String name) {
        QueueNames.validate(name);
        return store.exists(project, name);
    }

    public Uni<Void> delete(String project, String name) {
        QueueNames.validate(name);
        return store.delete(project, name);
    }

    /** One page of the project's queues, in name order, after {@code marker}. */
    public Uni<List<Queue>> list(String project, String marker, Integer limit, boolean detailed) {
        return list(project, marker, limit, detailed, null);
    }

    /** One page of the project's queues whose names contain {@code nameContains} (v2's {@code name} filter). */
    public Uni<List<Queue>> list(String project, String marker, Integer limit, boolean detailed, String nameContains) {
        int pageSize = limit == null ? DEFAULT_PAGE_SIZE : limit;
        if (pageSize < 1 || pageSize > config.maxQueuesPerPage()) {
            throw Rejection.invalidRequest(
                    "Limit must be at least 1 and no greater than " + config.maxQueuesPerPage() + ".");
        }
        return store.list(project, marker, pageSize, detailed, nameContains);
    }

    public Uni<Long> count(String project, String nameContains) {
        return store.count(project, nameContains);
    }

    /**
     * Creates a queue with an optional metadata document (v2); its reserved attributes are checked. An
     * existing queue is left as it is. True when the queue is new.
     */
    public Uni<Boolean> create(String project, String name, byte[] document) {
        QueueNames.validate(name);
        ObjectNode metadata = document == null || document.length == 0
                ? JsonNodeFactory.instance.objectNode()
                : readMetadata(document);
        reserved.validate(metadata);
        return store.create(project, name, metadata.toString());
    }

    /** The queue's metadata with every reserved attribute (defaults where unset); a missing queue has only those. */
    public Uni<ObjectNode> metadataWithDefaults(String project, String name) {
        QueueNames.validate(name);
        return store.metadata(project, name).map(found -> reserved.withDefaults(
                found.map(JsonBodies::readStoredObject).orElseGet(JsonNodeFactory.instance::objectNode)));
    }

    /**
     * Applies a JSON patch (add, replace, remove on {@code /metadata/<key>}) to the queue's metadata and
     * answers the result with defaults. Concurrent patches do not lose each other's changes: the write only
     * succeeds against the metadata the patch was applied to, and is retried otherwise.
     */
    public Uni<ObjectNode> patchMetadata(String project, String name, byte[] document) {
        QueueNames.validate(name);
        JsonNode operations = JsonBodies.parse(document);
        return patchAttempt(project, name, operations, 3);
    }

    private Uni<ObjectNode> patchAttempt(String project, String name, JsonNode operations, int attemptsLeft) {
        return store.metadata(project, name).flatMap(found -> {
            String current = found.orElseThrow(() -> queueNotFound(project, name));
            ObjectNode patched = MetadataPatch.apply(JsonBodies.readStoredObject(current), operations,
                    ReservedAttributes.ALL);
            String patchedJson = patched.toString();
            if (patchedJson.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > config.maxQueueMetadata()) {
                throw Rejection.invalidRequest("Queue metadata is too large. Max size: " + config.maxQueueMetadata());
            }
            reserved.validate(patched);
            return store.replaceMetadataIf(project, name, current, patchedJson).flatMap(replaced -> {
                if (replaced) {
                    return Uni.createFrom().item(reserved.withDefaults(patched));
                }
                if (attemptsLeft <= 1) {
                    throw new Rejection(Rejection.Reason.CONFLICT, "The queue's metadata kept changing while it was patched. Please try again.");
                }
                return patchAttempt(project, name, operations, attemptsLeft - 1);
            });
        });
    }

    private ObjectNode readMetadata(byte[] document) {
        if (document != null && document.length > config.maxQueueMetadata()) {
            throw Rejection.invalidRequest("Queue metadata is too large. Max size: " + config.maxQueueMetadata());
        }
        JsonNode metadata = JsonBodies.parse(document);
        if (!metadata.isObject()) {
            throw Rejection.invalidBody("Document type not supported. Queue metadata must be a JSON object.");
        }
        return (ObjectNode) metadata;
    }

    /** The queue's metadata as JSON text; 404 when the queue does not exist. */
    public Uni<String> metadata(String project, String name) {
        QueueNames.validate(name);
        return store.metadata(project, name)
                .map(found -> found.orElseThrow(() -> queueNotFound(project, name)));
    }

    /**
     * Replaces the metadata whole. The limit bounds the document as sent, whitespace included (as in
     * Zaqar), and is checked before the document is parsed.
     */
    public Uni<Void> replaceMetadata(String project, String name, byte[] document) {
        QueueNames.validate(name);
        ObjectNode metadata = readMetadata(document);
        reserved.validate(metadata);
        return store.replaceMetadata(project, name, metadata.toString())
                .map(updated -> {
                    if (!updated) {
                        throw queueNotFound(project, name);
                    }
                    return null;
                });
    }

    public static Rejection queueNotFound(String project, String name) {
        return Rejection.notFound("Queue " + name + " does not exist for project " + project);
    }
}
