package io.pigeon.message;

import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.CallMarker;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.observability.MessagingOperation;
import io.pigeon.observability.MessagingSpans;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.observability.StatementObservers;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Paging;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.CoalescingSettings;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The rules of posting and reading messages: TTL and delay bounds, paging bounds, listings, gets and stats. Reads of
 * one queue answer an {@code Optional} where the queue may be missing: what that means is each API version's decision.
 * Posts are carried out by {@link MessagePosts} (idempotent ones by {@link KeyedPosts}), behind the post methods here.
 * Deletes by id are {@link MessageDeletes}' job, pops {@link MessagePops}'.
 */
@ApplicationScoped
public class MessageService {

    private final MessageStore store;
    private final QueueDatabases databases;
    private final QueueMetrics metrics;
    private final UnreadableMessages unreadable;
    private final MessagingSpans spans;
    /** Read from the configuration once: it does not change while the application runs. */
    private final MessageBounds bounds;
    /** How many messages a request may name or take. */
    private final PageLimits limits;
    /** The posting of messages, keyed or not, sealed as their queues ask. */
    private final MessagePosts posts;

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
            PostKeyStore postKeys,
            MessagingSpans spans,
            StatementObservers statements) {
        this.spans = spans;
        this.unreadable = unreadable;
        this.store = store;
        this.databases = databases;
        this.bounds = MessageBounds.of(config);
        this.limits = PageLimits.of(config);
        this.metrics = metrics;
        this.posts = new MessagePosts(
                store,
                databases,
                config,
                coalescingSettings,
                metrics,
                statements,
                deliveries,
                cipher,
                marker,
                postKeys,
                bounds);
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
        return postCreatingQueue(
                project, queue, clientId, messages, documentSize, queueAttributes, callMarker, PostKeys.NONE);
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
        return spans.producing(
                MessagingOperation.POST,
                project,
                queue.value(),
                messages.size(),
                producer -> posts.postCreatingQueue(
                        project,
                        queue,
                        clientId,
                        NewMessage.producedBy(messages, producer),
                        documentSize,
                        queueAttributes,
                        callMarker,
                        keys));
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
        return spans.producing(
                MessagingOperation.POST,
                project,
                queue.value(),
                messages.size(),
                producer -> posts.post(
                        project, queue, clientId, NewMessage.producedBy(messages, producer), callMarker, keys));
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
        return spans.producing(
                MessagingOperation.SEND,
                queue.project(),
                queue.name().value(),
                messages.size(),
                producer -> posts.send(
                        queue, keyId, clientId, NewMessage.producedBy(messages, producer), attributes, largest));
    }

    /**
     * Posts all messages or none to an existing queue; their ids in request order, empty without the queue. A post
     * carrying this deployment's {@code callMarker} notifies nobody (see {@link #postCreatingQueue}).
     */
    public Uni<Optional<long[]>> post(
            String project, QueueName queue, UUID clientId, List<NewMessage> messages, String callMarker) {
        return spans.producing(
                MessagingOperation.POST,
                project,
                queue.value(),
                messages.size(),
                producer ->
                        posts.post(project, queue, clientId, NewMessage.producedBy(messages, producer), callMarker));
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
        limits.requireIdCount(ids);
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
        return limits.pageSize(limit);
    }

    public static Rejection messageNotFound(String project, QueueName queue, String id) {
        return Rejection.notFound(
                "Message " + id + " does not exist in " + queue.kind() + " " + queue + " for project " + project);
    }
}
