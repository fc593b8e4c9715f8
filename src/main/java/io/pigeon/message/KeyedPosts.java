package io.pigeon.message;

import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.DatabaseFailures;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The transaction of an idempotent post (one with an Idempotency-Key or dedup_ids, see {@link PostKeys}) and its
 * retries. The post runs in a transaction of its own, never sharing a statement with others: its keys are taken first,
 * then what {@link KeyedPostPlan} decides is stored, then the keys taken anew are given their ids. The whole
 * transaction runs again when it was aborted by a conflict, when its queue was being created by another (once), or
 * when its bodies were (not) sealed and the queue asks otherwise ({@link PostSealing}).
 */
final class KeyedPosts {

    private final MessageStore store;
    private final PostKeyStore postKeys;
    private final PostSealing sealing;
    private final PigeonConfig config;
    private final QueueMetrics metrics;
    private final DispatchService deliveries;

    KeyedPosts(
            MessageStore store,
            PostKeyStore postKeys,
            PostSealing sealing,
            PigeonConfig config,
            QueueMetrics metrics,
            DispatchService deliveries) {
        this.store = store;
        this.postKeys = postKeys;
        this.sealing = sealing;
        this.config = config;
        this.metrics = metrics;
        this.deliveries = deliveries;
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
     * A keyed post on {@code pool} creating the queue if needed: {@code asked} the messages as the client gave them
     * (which the key's digest covers), {@code toStore} as they are stored, {@code checkedSize} the document's size
     * that the queue's post-size limit bounds (0: none). Their ids in request order, a repeated message's being the
     * first's.
     */
    Uni<long[]> postCreatingQueue(
            Pool pool,
            String project,
            QueueName queue,
            UUID clientId,
            List<NewMessage> asked,
            List<NewMessage> toStore,
            int checkedSize,
            boolean fromPigeon,
            PostKeys keys) {
        return keyed(pool, project, queue, asked, toStore, keys, (placed, bodies, keyId) -> store.postCreatingQueue(
                                List.of(new MessageStore.NewPost(placed, keyId, clientId, bodies, checkedSize)),
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
                                        "Message collection size is too large. Max size " + alone.maxSize());
                            }
                            return alone;
                        }))
                .map(Optional::orElseThrow);
    }

    /** A keyed post on {@code pool} to an existing queue; empty without the queue (then no key is remembered). */
    Uni<Optional<long[]>> post(
            Pool pool,
            String project,
            QueueName queue,
            UUID clientId,
            List<NewMessage> messages,
            boolean fromPigeon,
            PostKeys keys) {
        return keyed(pool, project, queue, messages, messages, keys, (placed, bodies, keyId) -> store.post(
                        placed, clientId, bodies, keyId, fromPigeon)
                .map(stored -> stored.orElseThrow(QueueMissing::new)));
    }

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
        PlacedQueue outside = new PlacedQueue(pool, project, queue);
        Uni<KeyedAnswer> once = Uni.createFrom()
                .deferred(() -> sealing.sealedAsTheQueueAsks(
                        outside,
                        toStore,
                        (bodies, keyId) -> pool.withTransaction(tx -> keyedIn(
                                new PlacedQueue(tx, project, queue), asked, digest, keys, bodies, keyId, statement))));
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

    /**
     * The keyed post's transaction: read how the queue deduplicates, take the keys its messages go by, store what is
     * new, remember what was stored.
     */
    private Uni<KeyedAnswer> keyedIn(
            PlacedQueue placed,
            List<NewMessage> asked,
            byte[] digest,
            PostKeys given,
            List<NewMessage> bodies,
            String keyId,
            KeyedStatement statement) {
        return postKeys.settings(placed).chain(settings -> {
            PostKeys keys = given.deduplicatedAs(settings, asked);
            List<PostKeyStore.Taken> taken = KeyedPostPlan.keysOf(keys);
            Uni<Map<PostKeyStore.Taken, PostKeyStore.Remembered>> remembered =
                    taken.isEmpty() ? Uni.createFrom().item(Map.of()) : postKeys.take(placed, taken, digest);
            return remembered.chain(seen -> planned(placed, taken, seen, digest, keys, bodies, keyId, statement));
        });
    }

    private Uni<KeyedAnswer> planned(
            PlacedQueue placed,
            List<PostKeyStore.Taken> taken,
            Map<PostKeyStore.Taken, PostKeyStore.Remembered> remembered,
            byte[] digest,
            PostKeys keys,
            List<NewMessage> bodies,
            String keyId,
            KeyedStatement statement) {
        KeyedPostPlan plan = KeyedPostPlan.decide(keys, bodies.size(), digest, taken, remembered);
        if (plan.repeat()) {
            return Uni.createFrom()
                    .item(new KeyedAnswer(plan.answer(new long[0]).ids(), 0, 0));
        }
        List<Integer> storedAt = plan.toStore();
        Uni<MessageStore.Posted> stored = storedAt.isEmpty()
                ? Uni.createFrom().item(new MessageStore.Posted(null, new long[0], 0))
                : statement.store(placed, storedAt.stream().map(bodies::get).toList(), keyId);
        return stored.chain(posted -> {
            KeyedPostPlan.Answer answer = plan.answer(posted.ids());
            KeyedAnswer keyed = new KeyedAnswer(answer.ids(), storedAt.size(), posted.notifications());
            return answer.fresh().isEmpty()
                    ? Uni.createFrom().item(keyed)
                    : postKeys.remember(placed, answer.fresh(), answer.ids(), answer.dedupIdsStored())
                            .replaceWith(keyed);
        });
    }
}
