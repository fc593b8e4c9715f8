package io.pigeon.queue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.api.ApiException;
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

    public QueueService(QueueStore store, PigeonConfig config) {
        this.store = store;
        this.config = config;
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
        int pageSize = limit == null ? DEFAULT_PAGE_SIZE : limit;
        if (pageSize < 1 || pageSize > config.maxQueuesPerPage()) {
            throw ApiException.invalidRequest(
                    "Limit must be at least 1 and no greater than " + config.maxQueuesPerPage() + ".");
        }
        return store.list(project, marker, pageSize, detailed);
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
        if (document != null && document.length > config.maxQueueMetadata()) {
            throw ApiException.invalidRequest("Queue metadata is too large. Max size: " + config.maxQueueMetadata());
        }
        JsonNode metadata = JsonBodies.parse(document);
        if (!metadata.isObject()) {
            throw ApiException.invalidBody("Document type not supported. Queue metadata must be a JSON object.");
        }
        return store.replaceMetadata(project, name, metadata.toString())
                .map(updated -> {
                    if (!updated) {
                        throw queueNotFound(project, name);
                    }
                    return null;
                });
    }

    public static ApiException queueNotFound(String project, String name) {
        return ApiException.notFound("Queue " + name + " does not exist for project " + project);
    }
}
