package io.pigeon.message;

import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.CallMarker;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.ReservedAttributes;
import io.pigeon.rules.Paging;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.Coalescer;
import io.pigeon.storage.CoalescingSettings;
import io.pigeon.storage.DatabaseFailures;
import io.pigeon.waiting.QueueWaits;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;

/**
 * The rules of messages: TTL and delay bounds, paging bounds, and who may delete what. Reads of one queue
 * answer an {@code Optional} where the queue may be missing: what that means is each API version's decision.
 */
@ApplicationScoped
public class MessageService {

    private final MessageStore store;
    private final QueueDatabases databases;
    private final PigeonConfig config;
    private final QueueMetrics metrics;
    private final DispatchService deliveries;
    private final MessageCipher cipher;
    private final UnreadableMessages unreadable;
    private final CallMarker marker;
    private final QueueWaits waits;
    private final PostKeyStore postKeys;
    /** Read from the configuration once: it does not change while the application runs. */
    private final MessageBounds bounds;
    /** The queues (project NUL name) this replica has seen ask for encryption, so that their posts are sealed first. */
    private final Set<String> sealingQueues = ConcurrentHashMap.newKeySet();

    private static final int MAX_REMEMBERED_SEALING_QUEUES = 10_000;
    /** Posts to any queues of one database, arriving while one is being stored, share the next statement. */
    private final Coalescer<PostKey, MessageStore.NewPost, MessageStore.Posted> posts;
    /** Deletes by ids on one database arriving while one is running share the next statement, whatever their queues. */
    private final Coalescer<SqlClient, MessageStore.IdsInQueue, Integer> deletesByIds;

    /**
     * What posts sharing a statement must have in common: their database (a pool, equal only to itself), and whether
     * they are calls Pigeon made (which notify nobody). Each post carries its own queue and sealing key.
     */
    private record PostKey(SqlClient db, boolean fromPigeon) {}

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
        this.postKeys = postKeys;
        this.cipher = cipher;
        this.unreadable = unreadable;
        this.marker = marker;
        this.store = store;
        this.databases = databases;
        this.config = config;
        this.bounds = MessageBounds.of(config);
        this.metrics = metrics;
        this.deliveries = deliveries;
        this.posts = new Coalescer<>(
                this::postTogether,
                post -> post.messages().size(),
                MessageStore.NewPost::bodyLength,
                coalescingSettings,
                metrics.statementRequests("post"));
        this.deletesByIds = new Coalescer<>(
                store::deleteByIds,
                request -> request.ids().length,
                request -> 0,
                coalescingSettings,
                metrics.statementRequests("delete"));
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

    /** How many creating posts wait for the next statement of their database, behind one in flight (for tests). */
    public int postsWaiting() {
        return posts.waiting();
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

    private void checkAll(List<NewMessage> messages) {
        if (messages.isEmpty()) {
            throw Rejection.invalidRequest("No messages to enqueu.");
        }
        messages.forEach(this::check);
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
        checkAll(messages);
        List<NewMessage> toStore = queueAttributes
                ? messages
                : messages.stream()
                        .map(m -> new NewMessage(m.ttl() == null ? config.defaultMessageTtl() : m.ttl(), 0, m.body()))
                        .toList();
        // Without the queue's attributes its post-size limit does not apply either: a size of 0 is within any.
        int checkedSize = queueAttributes ? documentSize : 0;
        return marker.recognises(callMarker)
                .chain(fromPigeon -> PlacedQueue.forCreating(databases, project, queue, null)
                        .chain(placed -> sealedAsTheQueueAsks(
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
                .map(MessageStore.Posted::ids);
    }

    /**
     * {@link #postCreatingQueue(String, QueueName, UUID, List, int, boolean, String)} made idempotent by {@code keys}
     * (see {@link PostKeys}); without any, exactly that post. With them the post runs in a transaction of its own,
     * never sharing a statement with others: its keys are taken first (a repeat of a remembered post key answers the
     * ids it remembers and stores nothing), then the messages whose dedup_ids are new are stored, then the keys are
     * given their ids. Their ids in request order, a repeated message's being the first's.
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
        if (!keys.any()) {
            return postCreatingQueue(project, queue, clientId, messages, documentSize, queueAttributes, callMarker);
        }
        checkAll(messages);
        List<NewMessage> toStore = queueAttributes
                ? messages
                : messages.stream()
                        .map(m -> new NewMessage(m.ttl() == null ? config.defaultMessageTtl() : m.ttl(), 0, m.body()))
                        .toList();
        int checkedSize = queueAttributes ? documentSize : 0;
        return marker.recognises(callMarker)
                .chain(fromPigeon -> databases
                        .forCreating(project, queue.value(), null)
                        .chain(pool -> keyed(
                                pool,
                                project,
                                queue,
                                messages,
                                toStore,
                                keys,
                                (placed, bodies, keyId) -> store.postCreatingQueue(
                                                List.of(new MessageStore.NewPost(
                                                        placed, keyId, clientId, bodies, checkedSize)),
                                                fromPigeon,
                                                config.maxMessagesPostSize(),
                                                config.defaultMessageTtl())
                                        .map(posted -> {
                                            MessageStore.Posted alone = posted.get(0);
                                            if (alone.maxSize() == null) {
                                                throw new QueueBeingCreated();
                                            }
                                            if (alone.ids().length == 0) {
                                                throw Rejection.invalidRequest(
                                                        "Message collection size is too large. Max size "
                                                                + alone.maxSize());
                                            }
                                            return alone;
                                        }))))
                .map(Optional::orElseThrow);
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
        if (!keys.any()) {
            return post(project, queue, clientId, messages, callMarker);
        }
        checkAll(messages);
        return marker.recognises(callMarker).chain(fromPigeon -> databases
                .of(project, queue.value())
                .chain(pool ->
                        keyed(pool, project, queue, messages, messages, keys, (placed, bodies, keyId) -> store.post(
                                        placed, clientId, bodies, keyId, fromPigeon)
                                .map(stored -> stored.orElseThrow(QueueMissing::new)))));
    }

    /** Stores the messages of a keyed post (sealed with {@code keyId}, null: in clear) on the queue's transaction. */
    private interface KeyedStatement {
        Uni<MessageStore.Posted> store(PlacedQueue placed, List<NewMessage> messages, String keyId);
    }

    /** The queue of a keyed post to an existing queue is missing: its transaction is undone, no key remembered. */
    private static final class QueueMissing extends RuntimeException {
        QueueMissing() {
            super("queue missing", null, false, false);
        }
    }

    /** The queue of a keyed post was being created by another transaction: nothing was stored, post again. */
    private static final class QueueBeingCreated extends RuntimeException {
        QueueBeingCreated() {
            super("queue being created", null, false, false);
        }
    }

    /** What a keyed post answers: its ids in request order, how many it stored, the notifications it queued. */
    private record KeyedAnswer(long[] ids, int stored, long notifications) {}

    /**
     * A keyed post on {@code pool}, in one transaction (again, whole, if it was refused for its sealing, met a queue
     * being created, or was aborted by a conflict); empty when its queue is missing (an existing queue's post).
     */
    private Uni<Optional<long[]>> keyed(
            Pool pool,
            String project,
            QueueName queue,
            List<NewMessage> asked,
            List<NewMessage> toStore,
            PostKeys keys,
            KeyedStatement statement) {
        byte[] digest = keys.key() == null ? null : keys.digest(asked);
        List<PostKeyStore.Taken> taken = new ArrayList<>();
        if (keys.key() != null) {
            taken.add(new PostKeyStore.Taken(PostKeyStore.KEY, keys.key()));
        }
        if (keys.dedupIds() != null) {
            keys.dedupIds().stream()
                    .filter(Objects::nonNull)
                    .distinct()
                    .forEach(id -> taken.add(new PostKeyStore.Taken(PostKeyStore.DEDUP, id)));
        }
        PlacedQueue outside = new PlacedQueue(pool, project, queue);
        Uni<KeyedAnswer> once = Uni.createFrom()
                .deferred(() -> sealedAsTheQueueAsks(
                        outside,
                        toStore,
                        (bodies, keyId) -> pool.withTransaction(tx -> keyedIn(
                                new PlacedQueue(tx, project, queue), taken, digest, keys, bodies, keyId, statement))));
        return DatabaseFailures.retriedOnConflict(once)
                .onFailure(QueueBeingCreated.class)
                .retry()
                .atMost(1)
                .onFailure(QueueBeingCreated.class)
                .transform(busy -> new Rejection(
                        Rejection.Reason.UNAVAILABLE,
                        "The queue is being created by another request. Please try again."))
                .invoke(answer -> metrics.posted(project, queue.value(), answer.stored()))
                .call(answer -> deliveries.notificationsQueued(pool, answer.notifications()))
                .map(answer -> Optional.of(answer.ids()))
                .onFailure(QueueMissing.class)
                .recoverWithItem(Optional.empty());
    }

    /** The keyed post's transaction: take the keys, store what is new, remember what was stored. */
    private Uni<KeyedAnswer> keyedIn(
            PlacedQueue placed,
            List<PostKeyStore.Taken> taken,
            byte[] digest,
            PostKeys keys,
            List<NewMessage> bodies,
            String keyId,
            KeyedStatement statement) {
        return postKeys.take(placed, taken, digest).chain(remembered -> {
            if (keys.key() != null) {
                PostKeyStore.Remembered post = remembered.get(new PostKeyStore.Taken(PostKeyStore.KEY, keys.key()));
                if (post.ids() != null) {
                    if (!Arrays.equals(post.requestHash(), digest)) {
                        throw new Rejection(
                                Rejection.Reason.KEY_REUSED,
                                "Idempotency-Key " + keys.key() + " was sent with other messages within the queue's "
                                        + ReservedAttributes.DEDUP_WINDOW_SECONDS + ": use a new key for a new post.");
                    }
                    return Uni.createFrom().item(new KeyedAnswer(post.ids(), 0, 0));
                }
            }
            // Each message is stored, or answered with the id a dedup_id remembers, or with that of the message
            // before it in this post that has its dedup_id (firsts: the index of each new dedup_id's message).
            long[] answer = new long[bodies.size()];
            int[] sameAs = new int[bodies.size()];
            Arrays.fill(sameAs, -1);
            Map<String, Integer> firsts = new LinkedHashMap<>();
            List<Integer> storedAt = new ArrayList<>();
            for (int i = 0; i < bodies.size(); i++) {
                String dedupId = keys.dedupId(i);
                PostKeyStore.Remembered seen =
                        dedupId == null ? null : remembered.get(new PostKeyStore.Taken(PostKeyStore.DEDUP, dedupId));
                if (seen != null && seen.ids() != null) {
                    answer[i] = seen.ids()[0];
                } else if (dedupId != null && firsts.containsKey(dedupId)) {
                    sameAs[i] = firsts.get(dedupId);
                } else {
                    if (dedupId != null) {
                        firsts.put(dedupId, i);
                    }
                    storedAt.add(i);
                }
            }
            Uni<MessageStore.Posted> stored = storedAt.isEmpty()
                    ? Uni.createFrom().item(new MessageStore.Posted(null, new long[0], 0))
                    : statement.store(placed, storedAt.stream().map(bodies::get).toList(), keyId);
            return stored.chain(posted -> {
                for (int j = 0; j < storedAt.size(); j++) {
                    answer[storedAt.get(j)] = posted.ids()[j];
                }
                for (int i = 0; i < answer.length; i++) {
                    if (sameAs[i] >= 0) {
                        answer[i] = answer[sameAs[i]];
                    }
                }
                // The keys taken now, in the order taken: the post's key (if new), then the new dedup_ids.
                List<PostKeyStore.Taken> fresh = new ArrayList<>();
                List<Long> dedupIdsStored = new ArrayList<>();
                for (PostKeyStore.Taken key : taken) {
                    if (remembered.get(key).ids() != null) {
                        continue;
                    }
                    fresh.add(key);
                    if (PostKeyStore.DEDUP.equals(key.kind())) {
                        dedupIdsStored.add(answer[firsts.get(key.key())]);
                    }
                }
                KeyedAnswer keyed = new KeyedAnswer(answer, storedAt.size(), posted.notifications());
                return fresh.isEmpty()
                        ? Uni.createFrom().item(keyed)
                        : postKeys.remember(placed, fresh, answer, dedupIdsStored)
                                .replaceWith(keyed);
            });
        });
    }

    /**
     * Posts all messages or none to an existing queue; their ids in request order, empty without the queue. A post
     * carrying this deployment's {@code callMarker} notifies nobody (see {@link #postCreatingQueue}).
     */
    public Uni<Optional<long[]>> post(
            String project, QueueName queue, UUID clientId, List<NewMessage> messages, String callMarker) {
        checkAll(messages);
        return marker.recognises(callMarker)
                .chain(fromPigeon -> PlacedQueue.of(databases, project, queue).chain(placed -> sealedAsTheQueueAsks(
                                placed,
                                messages,
                                (bodies, keyId) -> store.post(placed, clientId, bodies, keyId, fromPigeon))
                        .invoke(stored -> stored.ifPresent(
                                posted -> metrics.posted(project, placed.storedName(), posted.ids().length)))
                        .call(stored -> stored.isEmpty()
                                ? Uni.createFrom().voidItem()
                                : deliveries.notificationsQueued(
                                        placed.db(), stored.get().notifications()))))
                .map(stored -> stored.map(MessageStore.Posted::ids));
    }

    /**
     * Runs {@code post} with the bodies sealed when the queue is known to ask for encryption, else in clear; when
     * the statement finds that the queue asks otherwise (nothing was stored), once more the other way. The setting
     * lives in the queue's metadata, which only the posting statement reads, so that a post stays one round trip;
     * what was learnt is kept in {@link #sealingQueues}.
     */
    private <T> Uni<T> sealedAsTheQueueAsks(
            PlacedQueue queue, List<NewMessage> messages, BiFunction<List<NewMessage>, String, Uni<T>> post) {
        String key = queue.project() + '\u0000' + queue.storedName();
        boolean seal = sealingQueues.contains(key);
        return postSealedOrNot(queue, messages, seal, post)
                .onFailure(MessageStore::isSealingMismatch)
                .recoverWithUni(mismatch -> {
                    rememberSealing(key, !seal);
                    return postSealedOrNot(queue, messages, !seal, post);
                });
    }

    private <T> Uni<T> postSealedOrNot(
            PlacedQueue queue,
            List<NewMessage> messages,
            boolean seal,
            BiFunction<List<NewMessage>, String, Uni<T>> post) {
        if (!seal) {
            return post.apply(messages, null);
        }
        if (!cipher.enabled()) {
            return Uni.createFrom()
                    .failure(Rejection.invalidRequest("The queue asks for its messages to be encrypted ("
                            + ReservedAttributes.ENABLE_ENCRYPT_MESSAGES
                            + "), but this server has no encryption key configured."));
        }
        List<NewMessage> sealed = new ArrayList<>(messages.size());
        String keyId = null;
        for (NewMessage message : messages) {
            MessageCipher.Sealed body = cipher.seal(queue.project(), queue.storedName(), message.body());
            keyId = body.keyId();
            sealed.add(new NewMessage(message.ttl(), message.delay(), body.text()));
        }
        return post.apply(sealed, keyId);
    }

    private void rememberSealing(String queueKey, boolean seals) {
        if (!seals) {
            sealingQueues.remove(queueKey);
            return;
        }
        if (sealingQueues.size() >= MAX_REMEMBERED_SEALING_QUEUES) {
            // Forgetting costs one more round trip on the next post to each: no need for an LRU.
            sealingQueues.clear();
        }
        sealingQueues.add(queueKey);
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
