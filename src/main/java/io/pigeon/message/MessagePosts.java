package io.pigeon.message;

import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.CallMarker;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.observability.StatementObservers;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.Coalescer;
import io.pigeon.storage.CoalescingSettings;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The posting of messages, behind {@link MessageService}'s post methods: a post's checks, where it goes, and how it is
 * stored. Posts without keys to a queue they may create share a statement with the concurrent posts of their database;
 * posts to an existing queue take one statement each; posts with keys take a transaction of their own
 * ({@link KeyedPosts}), as do posts to a queue that deduplicates by content ({@link DeduplicatingQueues}). Each is
 * sealed as its queue asks ({@link PostSealing}).
 */
final class MessagePosts {

    private final MessageStore store;
    private final QueueDatabases databases;
    private final PigeonConfig config;
    private final QueueMetrics metrics;
    private final DispatchService deliveries;
    private final CallMarker marker;
    private final MessageBounds bounds;
    private final PostSealing sealing;
    private final KeyedPosts keyed;
    /** The queues this replica has seen deduplicate by content: their posts go through the keys at once. */
    private final DeduplicatingQueues deduplicating = new DeduplicatingQueues();
    /** Posts to any queues of one database, arriving while one is being stored, share the next statement. */
    private final Coalescer<PostKey, MessageStore.NewPost, MessageStore.Posted> posts;

    /**
     * What posts sharing a statement must have in common: their database (a pool, equal only to itself), and whether
     * they are calls Pigeon made (which notify nobody). Each post carries its own queue and sealing key.
     */
    private record PostKey(SqlClient db, boolean fromPigeon) {}

    MessagePosts(
            MessageStore store,
            QueueDatabases databases,
            PigeonConfig config,
            CoalescingSettings coalescingSettings,
            QueueMetrics metrics,
            StatementObservers statements,
            DispatchService deliveries,
            MessageCipher cipher,
            CallMarker marker,
            PostKeyStore postKeys,
            MessageBounds bounds) {
        this.store = store;
        this.databases = databases;
        this.config = config;
        this.metrics = metrics;
        this.deliveries = deliveries;
        this.marker = marker;
        this.bounds = bounds;
        this.sealing = new PostSealing(cipher);
        this.keyed = new KeyedPosts(store, postKeys, sealing, config, metrics, deliveries);
        this.posts = new Coalescer<>(
                this::postTogether,
                post -> post.messages().size(),
                MessageStore.NewPost::bodyLength,
                coalescingSettings,
                statements.of("post"));
    }

    /**
     * Stores posts in one statement; once more those whose queue was being created by a concurrent request meanwhile
     * (they stored nothing; now their queue exists).
     */
    private Uni<List<MessageStore.Posted>> postTogether(PostKey key, List<MessageStore.NewPost> together) {
        return storePosts(key, together).flatMap(stored -> {
            List<Integer> again = new ArrayList<>();
            for (int i = 0; i < stored.size(); i++) {
                if (stored.get(i).maxSize() == null) {
                    again.add(i);
                }
            }
            if (again.isEmpty()) {
                return Uni.createFrom().item(stored);
            }
            return storePosts(key, again.stream().map(together::get).toList()).map(retried -> {
                List<MessageStore.Posted> answers = new ArrayList<>(stored);
                for (int j = 0; j < again.size(); j++) {
                    MessageStore.Posted first = stored.get(again.get(j));
                    MessageStore.Posted second = retried.get(j);
                    // The first statement's notifications may be counted in a post retried: they are kept.
                    answers.set(
                            again.get(j),
                            new MessageStore.Posted(
                                    second.maxSize(), second.ids(), first.notifications() + second.notifications()));
                }
                return answers;
            });
        });
    }

    private Uni<List<MessageStore.Posted>> storePosts(PostKey key, List<MessageStore.NewPost> posts) {
        return store.postCreatingQueue(
                posts, key.fromPigeon(), config.maxMessagesPostSize(), config.defaultMessageTtl());
    }

    /** See {@link MessageService#send}: a post that never creates its queue, sharing statements as the others. */
    Uni<MessageStore.Posted> send(
            PlacedQueue queue,
            String keyId,
            UUID clientId,
            List<NewMessage> messages,
            List<String> attributes,
            int largest) {
        return posts.submit(
                new PostKey(queue.db(), false),
                new MessageStore.NewPost(queue, keyId, clientId, messages, largest, attributes, false));
    }

    /** How many creating posts wait for the next statement of their database, behind one in flight. */
    int postsWaiting() {
        return posts.waiting();
    }

    private void checkAll(List<NewMessage> messages) {
        if (messages.isEmpty()) {
            throw Rejection.invalidRequest("No messages to enqueu.");
        }
        messages.forEach(message -> {
            bounds.checkTtl(message.ttl());
            bounds.checkDelay(message.delay());
        });
    }

    /** Without the queue's attributes (v1.1, as Zaqar's), a message without a TTL takes the global default, none is delayed. */
    private List<NewMessage> asStored(List<NewMessage> messages, boolean queueAttributes) {
        return queueAttributes
                ? messages
                : messages.stream()
                        .map(m -> new NewMessage(
                                m.ttl() == null ? config.defaultMessageTtl() : m.ttl(),
                                0,
                                m.body(),
                                m.group(),
                                m.trace()))
                        .toList();
    }

    /** See {@link MessageService#postCreatingQueue(String, QueueName, UUID, List, int, boolean, String)}. */
    Uni<long[]> postCreatingQueue(
            String project,
            QueueName queue,
            UUID clientId,
            List<NewMessage> messages,
            int documentSize,
            boolean queueAttributes,
            String callMarker) {
        if (deduplicating.contains(project, queue)) {
            return keyedCreating(
                    project, queue, clientId, messages, documentSize, queueAttributes, callMarker, PostKeys.NONE);
        }
        checkAll(messages);
        List<NewMessage> toStore = asStored(messages, queueAttributes);
        // Without the queue's attributes its post-size limit does not apply either: a size of 0 is within any.
        int checkedSize = queueAttributes ? documentSize : 0;
        return marker.recognises(callMarker)
                .chain(fromPigeon -> PlacedQueue.forCreating(databases, project, queue, null)
                        .chain(placed -> sealing.sealedAsTheQueueAsks(
                                        placed,
                                        toStore,
                                        (bodies, keyId) -> posts.submit(
                                                new PostKey(placed.db(), fromPigeon),
                                                new MessageStore.NewPost(placed, keyId, clientId, bodies, checkedSize)))
                                .map(posted -> {
                                    if (posted.maxSize() != null && posted.ids().length == 0) {
                                        throw Rejection.invalidRequest(
                                                "Message collection size is too large. Max size " + posted.maxSize());
                                    }
                                    if (posted.maxSize() == null) {
                                        throw new Rejection(
                                                Rejection.Reason.UNAVAILABLE,
                                                "The queue is being created by another request. Please try again.");
                                    }
                                    metrics.posted(project, placed.storedName(), posted.ids().length);
                                    return posted;
                                })
                                .call(posted -> deliveries.notificationsQueued(placed.db(), posted.notifications()))))
                .map(MessageStore.Posted::ids)
                .onFailure(MessageStore::isDeduplicationNeeded)
                .recoverWithUni(needed -> {
                    deduplicating.add(project, queue);
                    return keyedCreating(
                            project,
                            queue,
                            clientId,
                            messages,
                            documentSize,
                            queueAttributes,
                            callMarker,
                            PostKeys.NONE);
                });
    }

    /** See {@link MessageService#postCreatingQueue(String, QueueName, UUID, List, int, boolean, String, PostKeys)}. */
    Uni<long[]> postCreatingQueue(
            String project,
            QueueName queue,
            UUID clientId,
            List<NewMessage> messages,
            int documentSize,
            boolean queueAttributes,
            String callMarker,
            PostKeys keys) {
        if (!keys.any()) {
            return postCreatingQueue(project, queue, clientId, messages, documentSize, queueAttributes, callMarker);
        }
        return keyedCreating(project, queue, clientId, messages, documentSize, queueAttributes, callMarker, keys);
    }

    /** A post through its keys (see KeyedPosts), creating the queue if needed. */
    private Uni<long[]> keyedCreating(
            String project,
            QueueName queue,
            UUID clientId,
            List<NewMessage> messages,
            int documentSize,
            boolean queueAttributes,
            String callMarker,
            PostKeys keys) {
        checkAll(messages);
        List<NewMessage> toStore = asStored(messages, queueAttributes);
        int checkedSize = queueAttributes ? documentSize : 0;
        return marker.recognises(callMarker).chain(fromPigeon -> databases
                .forCreating(project, queue.value(), null)
                .chain(pool -> keyed.postCreatingQueue(
                        pool, project, queue, clientId, messages, toStore, checkedSize, fromPigeon, keys)));
    }

    /** See {@link MessageService#post(String, QueueName, UUID, List, String, PostKeys)}. */
    Uni<Optional<long[]>> post(
            String project,
            QueueName queue,
            UUID clientId,
            List<NewMessage> messages,
            String callMarker,
            PostKeys keys) {
        if (!keys.any()) {
            return post(project, queue, clientId, messages, callMarker);
        }
        return keyedPost(project, queue, clientId, messages, callMarker, keys);
    }

    /** A post through its keys (see KeyedPosts) to an existing queue. */
    private Uni<Optional<long[]>> keyedPost(
            String project,
            QueueName queue,
            UUID clientId,
            List<NewMessage> messages,
            String callMarker,
            PostKeys keys) {
        checkAll(messages);
        return marker.recognises(callMarker).chain(fromPigeon -> databases
                .of(project, queue.value())
                .chain(pool -> keyed.post(pool, project, queue, clientId, messages, fromPigeon, keys)));
    }

    /** See {@link MessageService#post(String, QueueName, UUID, List, String)}. */
    Uni<Optional<long[]>> post(
            String project, QueueName queue, UUID clientId, List<NewMessage> messages, String callMarker) {
        if (deduplicating.contains(project, queue)) {
            return keyedPost(project, queue, clientId, messages, callMarker, PostKeys.NONE);
        }
        checkAll(messages);
        return marker.recognises(callMarker)
                .chain(fromPigeon -> PlacedQueue.of(databases, project, queue)
                        .chain(placed -> sealing.sealedAsTheQueueAsks(
                                        placed,
                                        messages,
                                        (bodies, keyId) -> store.post(placed, clientId, bodies, keyId, fromPigeon))
                                .invoke(stored -> stored.ifPresent(
                                        posted -> metrics.posted(project, placed.storedName(), posted.ids().length)))
                                .call(stored -> stored.isEmpty()
                                        ? Uni.createFrom().voidItem()
                                        : deliveries.notificationsQueued(
                                                placed.db(), stored.get().notifications()))))
                .map(stored -> stored.map(MessageStore.Posted::ids))
                .onFailure(MessageStore::isDeduplicationNeeded)
                .recoverWithUni(needed -> {
                    deduplicating.add(project, queue);
                    return keyedPost(project, queue, clientId, messages, callMarker, PostKeys.NONE);
                });
    }
}
