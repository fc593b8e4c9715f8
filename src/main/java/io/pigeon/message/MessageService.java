package io.pigeon.message;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.rules.Rejection;
import io.pigeon.api.JsonBodies;
import io.pigeon.ids.Uuids;
import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.queue.QueueNames;
import io.pigeon.queue.QueueService;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The rules of messages: document size and shape, TTL bounds, paging bounds, and who may delete what. */
@ApplicationScoped
public class MessageService {

    static final int DEFAULT_PAGE_SIZE = 10;
    private static final long NO_MARKER = 0L;
    private static final UUID NIL_UUID = new UUID(0, 0);

    private final MessageStore store;
    private final PigeonConfig config;
    private final QueueMetrics metrics;
    private final DispatchService deliveries;

    public MessageService(MessageStore store, PigeonConfig config, QueueMetrics metrics, DispatchService deliveries) {
        this.deliveries = deliveries;
        this.store = store;
        this.config = config;
        this.metrics = metrics;
    }

    /**
     * Reads a message-post document: its size is bounded before it is parsed, then {@code messages} picks
     * the list of messages out of it (the bare array in v1).
     */
    public JsonNode readPostDocument(byte[] document) {
        if (document != null && document.length > config.maxMessagesPostSize()) {
            throw Rejection.invalidRequest(
                    "Message collection size is too large. Max size " + config.maxMessagesPostSize());
        }
        return JsonBodies.parse(document);
    }

    /**
     * Validates every message of {@code messages} (a JSON array) before any is stored. With
     * {@code queueDefaults} a message may omit {@code ttl} and give a {@code delay} (the queue's defaults then
     * apply, v2); without, {@code ttl} is required and {@code delay} is not part of the document (v1).
     */
    public List<NewMessage> toNewMessages(JsonNode messages, boolean queueDefaults) {
        if (messages == null || !messages.isArray()) {
            throw Rejection.invalidBody("Request body could not be parsed.");
        }
        if (messages.isEmpty()) {
            throw Rejection.invalidRequest("No messages to enqueu.");
        }
        List<NewMessage> parsed = new ArrayList<>(messages.size());
        for (JsonNode message : messages) {
            if (!message.isObject()) {
                throw Rejection.invalidBody("Each message must be a JSON object with \"ttl\" and \"body\" fields.");
            }
            JsonNode ttlNode = message.get("ttl");
            if (ttlNode == null && !queueDefaults) {
                throw Rejection.invalidBody("Missing \"ttl\" field.");
            }
            Integer ttl = ttlNode == null ? null : integerField("ttl", ttlNode);
            JsonNode body = message.get("body");
            if (body == null) {
                throw Rejection.invalidBody("Missing \"body\" field.");
            }
            if (ttl != null && (ttl < 60 || ttl > config.maxMessageTtl())) {
                throw Rejection.invalidRequest("The TTL for a message may not exceed " + config.maxMessageTtl()
                        + " seconds, and must be at least 60 seconds long.");
            }
            JsonNode delayNode = queueDefaults ? message.get("delay") : null;
            Integer delay = delayNode == null ? null : integerField("delay", delayNode);
            if (delay != null && (delay < 0 || delay > config.maxMessageDelay())) {
                throw Rejection.invalidRequest("The delay for a message may not exceed " + config.maxMessageDelay()
                        + " seconds, and must be at least 0 seconds long.");
            }
            parsed.add(new NewMessage(ttl, delay, body.toString()));
        }
        return parsed;
    }

    /** The message list of a v2 post document: {@code {"messages": [...]}}. */
    public JsonNode messagesOf(JsonNode document) {
        JsonNode messages = document.isObject() ? document.get("messages") : null;
        if (messages == null || !messages.isArray()) {
            if (!document.isObject() && !document.isArray()) {
                throw Rejection.invalidBody("Request body could not be parsed.");
            }
            throw Rejection.invalidRequest("No messages were found in the request body.");
        }
        return messages;
    }

    /**
     * Posts all messages or none, creating the queue if needed (v2); the queue's reserved attributes bound
     * the document's size and give the defaults. Their ids in request order.
     */
    public Uni<long[]> postCreatingQueue(String project, String queue, UUID clientId, List<NewMessage> messages,
            int documentSize) {
        QueueNames.validate(queue);
        return store.postCreatingQueue(project, queue, clientId, messages, documentSize, config.maxMessagesPostSize(),
                        config.defaultMessageTtl())
                .flatMap(posted -> posted.maxSize() == null
                        // The queue was being created by a concurrent request: now it exists.
                        ? store.postCreatingQueue(project, queue, clientId, messages, documentSize,
                                config.maxMessagesPostSize(), config.defaultMessageTtl())
                        : Uni.createFrom().item(posted))
                .map(posted -> {
                    if (posted.maxSize() != null && posted.ids().length == 0) {
                        throw Rejection.invalidRequest(
                                "Message collection size is too large. Max size " + posted.maxSize());
                    }
                    if (posted.maxSize() == null) {
                        throw new Rejection(Rejection.Reason.UNAVAILABLE, "The queue is being created by another request. Please try again.");
                    }
                    metrics.posted(posted.ids().length);
                    return posted;
                })
                .call(posted -> deliveries.notificationsQueued(posted.notifications()))
                .map(MessageStore.Posted::ids);
    }

    /** Takes and deletes up to {@code count} (1..max-messages-per-page) of the oldest free messages. */
    public Uni<List<Message>> pop(String project, String queue, Integer count) {
        QueueNames.validate(queue);
        if (count == null || count < 1 || count > config.maxMessagesPerPage()) {
            throw Rejection.invalidRequest(
                    "Pop value must be at least 1 and may not be greater than " + config.maxMessagesPerPage() + ".");
        }
        return store.pop(project, queue, count).invoke(popped -> metrics.deleted(popped.size()));
    }

    /** Deletes every message and claim of the queue. */
    public Uni<Void> purge(String project, String queue) {
        QueueNames.validate(queue);
        return store.purge(project, queue).invoke(metrics::deleted).replaceWithVoid();
    }

    /** Posts all messages or none; their ids in request order. 404 when the queue does not exist. */
    public Uni<long[]> post(String project, String queue, UUID clientId, List<NewMessage> messages) {
        QueueNames.validate(queue);
        return store.post(project, queue, clientId, messages).map(stored -> {
            MessageStore.Posted posted = stored.orElseThrow(() -> QueueService.queueNotFound(project, queue));
            metrics.posted(posted.ids().length);
            return posted;
        }).call(posted -> deliveries.notificationsQueued(posted.notifications())).map(MessageStore.Posted::ids);
    }

    /** One page of the queue, oldest first, after {@code marker}. 404 when the queue does not exist. */
    public Uni<List<Message>> list(String project, String queue, UUID clientId, String marker, Integer limit,
            boolean echo, boolean includeClaimed, boolean includeDelayed) {
        return page(project, queue, clientId, marker, limit, echo, includeClaimed, includeDelayed)
                .map(page -> page.orElseThrow(() -> QueueService.queueNotFound(project, queue)));
    }

    /** One page of the queue, oldest first, after {@code marker}; empty when the queue does not exist. */
    public Uni<Optional<List<Message>>> page(String project, String queue, UUID clientId, String marker,
            Integer limit, boolean echo, boolean includeClaimed, boolean includeDelayed) {
        QueueNames.validate(queue);
        int pageSize = pageSize(limit);
        long after = marker == null ? NO_MARKER : MessageIds.parse(marker).orElseThrow(
                () -> Rejection.invalidParameter("marker", "The value must be a marker from a \"next\" link."));
        return store.list(project, queue, after, clientId, echo, includeClaimed, includeDelayed, pageSize);
    }

    /** The live messages among {@code ids}; malformed and unknown ids are ignored. */
    public Uni<List<Message>> getByIds(String project, String queue, List<String> ids) {
        QueueNames.validate(queue);
        requireIdCount(ids);
        long[] rowIds = MessageIds.parseAll(ids);
        return rowIds.length == 0 ? Uni.createFrom().item(List.of()) : store.getByIds(project, queue, rowIds);
    }

    public Uni<Message> get(String project, String queue, String id) {
        QueueNames.validate(queue);
        Optional<Long> rowId = MessageIds.parse(id);
        if (rowId.isEmpty()) {
            return Uni.createFrom().failure(messageNotFound(project, queue, id));
        }
        return store.getByIds(project, queue, new long[] {rowId.get()}).map(found -> {
            if (found.isEmpty()) {
                throw messageNotFound(project, queue, id);
            }
            return found.get(0);
        });
    }

    /**
     * Deletes one message. A claimed message can only be deleted with its own live claim's id; a message
     * that is already gone is not an error.
     */
    public Uni<Void> delete(String project, String queue, String id, String claimId) {
        QueueNames.validate(queue);
        Optional<Long> rowId = MessageIds.parse(id);
        if (rowId.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        // A malformed claim id can hold nothing: the nil UUID, which no claim has, gives the same answers.
        UUID claim = claimId == null ? null : Uuids.parseCanonical(claimId).orElse(NIL_UUID);
        return store.delete(project, queue, rowId.get(), claim).map(outcome -> switch (outcome) {
            case DELETED -> {
                metrics.deleted(1);
                yield null;
            }
            case GONE -> null;
            case CLAIMED -> throw new Rejection(Rejection.Reason.CLAIM_REQUIRED, "This message is claimed; it cannot be deleted without a valid claim ID.");
            case CLAIM_MISMATCH -> throw new Rejection(Rejection.Reason.CLAIM_MISMATCH, "The specified claim does not exist or has expired.");
            case NOT_CLAIMED -> throw new Rejection(Rejection.Reason.CLAIM_MISMATCH, "A claim was specified, but the message is not currently claimed.");
        });
    }

    /** Deletes the listed messages whatever their claims, as Zaqar's bulk delete does. */
    public Uni<Void> deleteByIds(String project, String queue, List<String> ids) {
        QueueNames.validate(queue);
        if (ids == null) {
            throw new Rejection(Rejection.Reason.MISSING_PARAMETER, "The \"ids\" parameter is required.");
        }
        requireIdCount(ids);
        long[] rowIds = MessageIds.parseAll(ids);
        return rowIds.length == 0 ? Uni.createFrom().voidItem()
                : store.deleteByIds(project, queue, rowIds).invoke(metrics::deleted).replaceWithVoid();
    }

    public Uni<QueueStats> stats(String project, String queue) {
        return statsIfQueueExists(project, queue)
                .map(found -> found.orElseThrow(() -> QueueService.queueNotFound(project, queue)));
    }

    public Uni<Optional<QueueStats>> statsIfQueueExists(String project, String queue) {
        QueueNames.validate(queue);
        return store.stats(project, queue);
    }

    /** A {@code limit} for listing or claiming, 1..max-messages-per-page, 10 when absent. */
    public int pageSize(Integer limit) {
        int pageSize = limit == null ? DEFAULT_PAGE_SIZE : limit;
        if (pageSize < 1 || pageSize > config.maxMessagesPerPage()) {
            throw limitOutOfRange();
        }
        return pageSize;
    }

    private void requireIdCount(List<String> ids) {
        if (ids.size() > config.maxMessagesPerPage()) {
            throw limitOutOfRange();
        }
    }

    private Rejection limitOutOfRange() {
        return Rejection.invalidRequest(
                "Limit must be at least 1 and may not be greater than " + config.maxMessagesPerPage() + ".");
    }

    /**
     * Reads an integer field strictly: 60 and "60" differ, and 60.5 is not an integer. Integers beyond
     * int's range are clamped, so that the caller's bound check names the bound.
     */
    public static int integerField(String name, JsonNode value) {
        if (!value.isIntegralNumber()) {
            throw Rejection.invalidBody("The value of the \"" + name + "\" field must be a int.");
        }
        if (!value.canConvertToInt()) {
            return value.bigIntegerValue().signum() > 0 ? Integer.MAX_VALUE : Integer.MIN_VALUE;
        }
        return value.intValue();
    }

    public static Rejection messageNotFound(String project, String queue, String id) {
        return Rejection.notFound(
                "Message " + id + " does not exist in queue " + queue + " for project " + project);
    }
}
