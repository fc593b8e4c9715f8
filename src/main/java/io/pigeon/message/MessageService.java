package io.pigeon.message;

import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.CallMarker;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Paging;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.Coalescer;
import io.pigeon.storage.CoalescingSettings;
import io.pigeon.waiting.QueueWaits;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * The rules of messages: TTL and delay bounds, paging bounds, and who may delete what. Reads of one queue
 * answer an {@code Optional} where the queue may be missing: what that means is each API version's decision. Posts
 * are carried out by {@link MessagePosts} (idempotent ones by {@link KeyedPosts}), behind the post methods here.
 */
@ApplicationScoped
public class MessageService {

    private final MessageStore store;
    private final QueueDatabases databases;
    private final PigeonConfig config;
    private final QueueMetrics metrics;
    private final UnreadableMessages unreadable;
    private final QueueWaits waits;
    /** Read from the configuration once: it does not change while the application runs. */
    private final MessageBounds bounds;
    /** The posting of messages, keyed or not, sealed as their queues ask. */
    private final MessagePosts posts;
    /** Deletes by ids on one database arriving while one is running share the next statement, whatever their queues. */
    private final Coalescer<SqlClient, MessageStore.IdsInQueue, Integer> deletesByIds;

    public MessageService(
            MessageStore store,
            QueueDatabases databases,
            PigeonConfig config,
            CoalescingSettings coalescingSettings,
            QueueMetrics metrics,
            DispatchService deliveries,
            MessageCipher cipher,
            UnreadableMessages unreadable,
            CallMarker marker,
            QueueWaits waits,
            PostKeyStore postKeys) {
        this.waits = waits;
        this.unreadable = unreadable;
        this.store = store;
        this.databases = databases;
        this.config = config;
        this.bounds = MessageBounds.of(config);
        this.metrics = metrics;
        this.posts = new MessagePosts(
                store, databases, config, coalescingSettings, metrics, deliveries, cipher, marker, postKeys, bounds);
        this.deletesByIds = new Coalescer<>(
                store::deleteByIds,
                request -> request.ids().length,
                request -> 0,
                coalescingSettings,
                metrics.statementRequests("delete"));
    }

    /** How many creating posts wait for the next statement of their database, behind one in flight (for tests). */
    public int postsWaiting() {
        return posts.postsWaiting();
    }

    /** The bounds of a new message, which the readers of post documents check as they read. */
    public MessageBounds bounds() {
        return bounds;
    }

    /** Checks one new message's TTL and delay against their bounds (a missing one takes the queue's default). */
    public void check(NewMessage message) {
        checkTtl(message.ttl());
        checkDelay(message.delay());
    }

    public void checkTtl(Integer ttl) {
        bounds.checkTtl(ttl);
    }

    public void checkDelay(Integer delay) {
        bounds.checkDelay(delay);
    }

    /**
     * Posts all messages or none, creating the queue if needed (v2, v1.1). With {@code queueAttributes} (v2) the
     * queue's reserved attributes bound the document's size and give the defaults; without (v1.1, as Zaqar's), a
     * message without a TTL takes the global default and none is delayed. {@code callMarker} is the request's
     * {@link CallMarker#HEADER} (or null): a post that carries this deployment's marker is a call Pigeon made, which
     * came back; it is stored and notifies nobody. Their ids in request order.
     */
    public Uni<long[]> postCreatingQueue(
            String project,
            QueueName queue,
            UUID clientId,
            List<NewMessage> messages,
            int documentSize,
            boolean queueAttributes,
            String callMarker) {
        return posts.postCreatingQueue(project, queue, clientId, messages, documentSize, queueAttributes, callMarker);
    }

    /**
     * {@link #postCreatingQueue(String, QueueName, UUID, List, int, boolean, String)} made idempotent by {@code keys}
     * (see {@link PostKeys}); without any, exactly that post. With them the post runs in a transaction of its own,
     * never sharing a statement with others (see {@link KeyedPosts}): a repeat of a remembered post key answers the
     * ids it remembers and stores nothing, messages whose dedup_ids are remembered are not stored again. Their ids in
     * request order, a repeated message's being the first's.
     */
    public Uni<long[]> postCreatingQueue(
            String project,
            QueueName queue,
            UUID clientId,
            List<NewMessage> messages,
            int documentSize,
            boolean queueAttributes,
            String callMarker,
            PostKeys keys) {
        return posts.postCreatingQueue(
                project, queue, clientId, messages, documentSize, queueAttributes, callMarker, keys);
    }

    /**
     * {@link #post(String, QueueName, UUID, List, String)} made idempotent by {@code keys}, as
     * {@link #postCreatingQueue(String, QueueName, UUID, List, int, boolean, String, PostKeys)} is; empty without the
     * queue (then no key is remembered).
     */
    public Uni<Optional<long[]>> post(
            String project,
            QueueName queue,
            UUID clientId,
            List<NewMessage> messages,
            String callMarker,
            PostKeys keys) {
        return posts.post(project, queue, clientId, messages, callMarker, keys);
    }

    /**
     * SQS's send (decision 0019): stores {@code messages} (their TTL the queue's) with each one's SQS {@code attributes}
     * as stored, sealed with {@code keyId} (null: in clear), in the existing {@code queue} and never creating it, all
     * or none; over the queue's post-size limit ({@code largest} is the largest message's size) none. It shares a
     * statement with the posts of its database arriving together, as a Zaqar post does. A null max size: no queue.
     */
    public Uni<MessageStore.Posted> send(
            PlacedQueue queue,
            String keyId,
            UUID clientId,
            List<NewMessage> messages,
            List<String> attributes,
            int largest) {
        return posts.send(queue, keyId, clientId, messages, attributes, largest);
    }

    /**
     * Posts all messages or none to an existing queue; their ids in request order, empty without the queue. A post
     * carrying this deployment's {@code callMarker} notifies nobody (see {@link #postCreatingQueue}).
     */
    public Uni<Optional<long[]>> post(
            String project, QueueName queue, UUID clientId, List<NewMessage> messages, String callMarker) {
        return posts.post(project, queue, clientId, messages, callMarker);
    }

    /** Takes and deletes up to {@code count} (1..max-messages-per-page) of the oldest free messages. */
    public Uni<List<Message>> pop(String project, QueueName queue, Integer count) {
        if (count == null || count < 1 || count > config.maxMessagesPerPage()) {
            throw Rejection.invalidRequest(
                    "Pop value must be at least 1 and may not be greater than " + config.maxMessagesPerPage() + ".");
        }
        return PlacedQueue.of(databases, project, queue).chain(placed -> popOnce(placed, count));
    }

    private Uni<List<Message>> popOnce(PlacedQueue placed, int count) {
        // The pop has deleted the rows that do not open too: they are kept aside before the answer, which holds
        // every message the pop took that can be read.
        return store.pop(placed, count)
                .call(popped -> unreadable.keepPopped(placed, popped.unreadable()))
                .map(MessageRows.Read::messages)
                .invoke(popped -> metrics.deleted(placed.project(), placed.storedName(), popped.size()));
    }

    /**
     * Pops as {@link #pop} does, and when nothing is free waits for a message (Pigeon's long polling): up to {@code
     * wait} seconds (already within pigeon.claim-wait.max), or when null its queue's {@code _claim_wait_seconds}.
     * Each try pops only while {@code connected} says the client is there; messages popped for a client that left in
     * the moment of the pop's statement are lost with the answer, as any pop's whose answer is lost. {@code grant}: the
     * signature of the pre-signed URL that admitted the request, whose bound a wait counts against (null: the
     * project's). Empty when the queue does not exist (then nothing was waited for).
     */
    public Uni<Optional<List<Message>>> pop(
            String project, String grant, QueueName queue, Integer count, Integer wait, BooleanSupplier connected) {
        if (count == null || count < 1 || count > config.maxMessagesPerPage()) {
            throw Rejection.invalidRequest(
                    "Pop value must be at least 1 and may not be greater than " + config.maxMessagesPerPage() + ".");
        }
        return PlacedQueue.of(databases, project, queue).chain(placed -> {
            long seen = waits.seen(placed);
            return popOnce(placed, count).chain(first -> {
                if (!first.isEmpty() || (wait != null && wait == 0)) {
                    return Uni.createFrom().item(Optional.of(first));
                }
                // The pop's statement does not tell a missing queue from an empty one: the queue's default wait is
                // read (one statement, before any wait), which does.
                return waits.queueDefault(placed).chain(found -> {
                    if (found.isEmpty()) {
                        return Uni.createFrom().item(Optional.<List<Message>>empty());
                    }
                    int waitFor = wait != null ? wait : Math.min(found.get(), waits.maxSeconds());
                    return waits.await(
                                    placed,
                                    grant,
                                    seen,
                                    waitFor,
                                    count,
                                    new QueueWaits.Attempt<List<Message>>() {
                                        @Override
                                        public Uni<List<Message>> run() {
                                            return popOnce(placed, count);
                                        }

                                        @Override
                                        public int taken(List<Message> outcome) {
                                            return outcome.size();
                                        }

                                        @Override
                                        public Uni<Void> giveBack(List<Message> outcome) {
                                            return Uni.createFrom()
                                                    .voidItem(); // a pop's messages are deleted: nothing to give
                                        }
                                    },
                                    connected,
                                    List.<Message>of())
                            .map(Optional::of);
                });
            });
        });
    }

    /** Deletes every message and claim of the queue, on its client (the pool, or a caller's transaction). */
    public Uni<Void> purge(PlacedQueue queue) {
        return store.purge(queue)
                .invoke(count -> metrics.deleted(queue.project(), queue.storedName(), count))
                .replaceWithVoid();
    }

    /**
     * One page of the queue, oldest first, after row {@code after} (0: from the start), found within a bounded window
     * of rows; empty when the queue does not exist.
     */
    public Uni<Optional<MessagePage>> page(
            String project,
            QueueName queue,
            UUID clientId,
            long after,
            Integer limit,
            boolean echo,
            boolean includeClaimed,
            boolean includeDelayed) {
        int pageSize = pageSize(limit);
        return PlacedQueue.of(databases, project, queue).chain(placed -> store.list(
                        placed,
                        new MessageStore.ListQuery(after, clientId, echo, includeClaimed, includeDelayed, pageSize))
                .map(listed -> listed.map(found -> {
                    unreadable.leftOut(placed, found.unreadable());
                    return found.page();
                })));
    }

    /** The live messages among {@code ids}; malformed and unknown ids are ignored. */
    public Uni<List<Message>> getByIds(String project, QueueName queue, RequestedIds ids) {
        requireIdCount(ids);
        return ids.rowIds().length == 0
                ? Uni.createFrom().item(List.of())
                : PlacedQueue.of(databases, project, queue)
                        .chain(placed -> store.getByIds(placed, ids.rowIds()).map(found -> opened(placed, found)));
    }

    public Uni<Optional<Message>> get(String project, QueueName queue, long id) {
        return PlacedQueue.of(databases, project, queue).chain(placed -> store.getByIds(placed, new long[] {id})
                .map(found -> opened(placed, found).stream().findFirst()));
    }

    /** The messages of a read, its rows that do not open reported and left out (as though they were gone). */
    private List<Message> opened(PlacedQueue queue, MessageRows.Read read) {
        unreadable.leftOut(queue, read.unreadable());
        return read.messages();
    }

    /**
     * Deletes one message. A claimed message can only be deleted with its own live claim's id ({@code claimId},
     * null when none is given); a message that is already gone is not an error.
     */
    public Uni<Void> delete(String project, QueueName queue, long id, UUID claimId) {
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> store.delete(placed, id, claimId))
                .map(outcome -> switch (outcome) {
                    case DELETED -> {
                        metrics.deleted(project, queue.value(), 1);
                        yield null;
                    }
                    case GONE -> null;
                    case CLAIMED -> throw new Rejection(
                            Rejection.Reason.CLAIM_REQUIRED,
                            "This message is claimed; it cannot be deleted without a valid claim ID.");
                    case CLAIM_MISMATCH -> throw new Rejection(
                            Rejection.Reason.CLAIM_MISMATCH, "The specified claim does not exist or has expired.");
                    case NOT_CLAIMED -> throw new Rejection(
                            Rejection.Reason.CLAIM_MISMATCH,
                            "A claim was specified, but the message is not currently claimed.");
                });
    }

    /**
     * Deletes one message by the id a request names: an id that cannot be one of ours names no message, so there
     * is nothing to delete.
     */
    public Uni<Void> deleteNamed(String project, QueueName queue, String id, UUID claimId) {
        var rowId = MessageIds.parse(id);
        if (rowId.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return delete(project, queue, rowId.get(), claimId);
    }

    /** Deletes the listed messages whatever their claims, as Zaqar's bulk delete does. */
    public Uni<Void> deleteByIds(String project, QueueName queue, RequestedIds ids) {
        requireIdCount(ids);
        return ids.rowIds().length == 0
                ? Uni.createFrom().voidItem()
                : PlacedQueue.of(databases, project, queue)
                        .chain(placed ->
                                deletesByIds.submit(placed.db(), new MessageStore.IdsInQueue(placed, ids.rowIds())))
                        .invoke(count -> metrics.deleted(project, queue.value(), count))
                        .replaceWithVoid();
    }

    /** Whether a v2 bulk delete must name the claims of the claimed messages among its ids. */
    public boolean deleteNeedsClaimIds() {
        return config.messageDeleteWithClaimId();
    }

    /**
     * Deletes the listed messages, the claimed ones only with their claims' ids ({@code claimIds}; malformed
     * ones hold nothing): if one is held by another claim, nothing is deleted (403).
     */
    public Uni<Void> deleteByIdsWithClaims(String project, QueueName queue, RequestedIds ids, List<UUID> claimIds) {
        requireIdCount(ids);
        if (ids.rowIds().length == 0) {
            return Uni.createFrom().voidItem();
        }
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> store.deleteByIdsWithClaims(placed, ids.rowIds(), claimIds.toArray(UUID[]::new)))
                .map(deleted -> {
                    int count = deleted.orElseThrow(
                            () -> new Rejection(
                                    Rejection.Reason.CLAIM_REQUIRED,
                                    "A message among ids is claimed; it cannot be deleted without its claim's ID in claim_ids."));
                    metrics.deleted(project, queue.value(), count);
                    return null;
                });
    }

    /** The queue's message counts; empty when the queue does not exist. */
    public Uni<Optional<QueueStats>> stats(String project, QueueName queue) {
        return PlacedQueue.of(databases, project, queue).chain(store::stats);
    }

    /** The message counts of a queue the caller placed already (it watches the queue too); empty when it does not exist. */
    public Uni<Optional<QueueStats>> stats(PlacedQueue queue) {
        return store.stats(queue);
    }

    /** A {@code limit} for listing or claiming, 1..max-messages-per-page, {@link Paging#DEFAULT_PAGE_SIZE} when absent. */
    public int pageSize(Integer limit) {
        int pageSize = limit == null ? Paging.DEFAULT_PAGE_SIZE : limit;
        if (pageSize < 1 || pageSize > config.maxMessagesPerPage()) {
            throw limitOutOfRange();
        }
        return pageSize;
    }

    private void requireIdCount(RequestedIds ids) {
        if (ids.named() > config.maxMessagesPerPage()) {
            throw limitOutOfRange();
        }
    }

    private Rejection limitOutOfRange() {
        return Rejection.invalidRequest(
                "Limit must be at least 1 and may not be greater than " + config.maxMessagesPerPage() + ".");
    }

    public static Rejection messageNotFound(String project, QueueName queue, String id) {
        return Rejection.notFound(
                "Message " + id + " does not exist in " + queue.kind() + " " + queue + " for project " + project);
    }
}
