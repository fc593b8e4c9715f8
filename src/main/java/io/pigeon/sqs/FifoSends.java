package io.pigeon.sqs;

import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.message.Deduplication;
import io.pigeon.message.DeduplicationKeys;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.storage.DatabaseFailures;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * SendMessage(Batch) to a FIFO queue: every message deduplicated on the idempotency store ({@link Deduplication}) by its
 * MessageDeduplicationId, or its body's SHA-256 on a queue with ContentBasedDeduplication (else refused, as AWS does),
 * per queue or per group as the queue's DeduplicationScope says; in one transaction that takes the keys, stores the new
 * messages with their groups (SqsMessageStore.SEND) and remembers them, again whole on a conflict. A repeat within the
 * window stores nothing and answers the first message's id and SequenceNumber.
 */
@ApplicationScoped
public class FifoSends {

    private final SqsMessageStore store;
    private final QueueDatabases databases;
    private final PigeonConfig config;
    private final QueueMetrics metrics;
    private final DispatchService deliveries;
    private final Deduplication deduplication;
    private final SqsSealing sealing;

    public FifoSends(
            SqsMessageStore store,
            QueueDatabases databases,
            PigeonConfig config,
            QueueMetrics metrics,
            DispatchService deliveries,
            Deduplication deduplication,
            MessageCipher cipher) {
        this.store = store;
        this.databases = databases;
        this.config = config;
        this.metrics = metrics;
        this.deliveries = deliveries;
        this.deduplication = deduplication;
        this.sealing = new SqsSealing(cipher);
    }

    /** A batch's messages over the queue's size limit: the transaction is undone, and they are refused. */
    private static final class TooLong extends RuntimeException {
        final int maxSize;

        TooLong(int maxSize) {
            super("too long", null, false, false);
            this.maxSize = maxSize;
        }
    }

    /** Sends {@code messages}; per message, in their order, its {@link SentMessage} or its {@link SqsRefusal}. */
    Uni<List<Object>> send(String project, QueueName queue, UUID clientId, List<SqsMessages.Checked> messages) {
        return databases.of(project, queue.value()).chain(pool -> {
            PlacedQueue outside = new PlacedQueue(pool, project, queue);
            return deduplication.settings(outside).chain(settings -> {
                List<Object> outcomes = new ArrayList<>(messages.size());
                List<String> dedupIds = new ArrayList<>(messages.size());
                for (SqsMessages.Checked checked : messages) {
                    String dedupId = DeduplicationKeys.dedupId(
                            settings,
                            checked.message().deduplicationId(),
                            checked.message().body());
                    dedupIds.add(dedupId);
                    outcomes.add(dedupId == null ? MessageGroupRules.noDeduplicationId() : checked);
                }
                return sendable(pool, outside, clientId, settings, messages, dedupIds, outcomes, true);
            });
        });
    }

    /** Stores the messages whose outcome is still their Checked; once more without those over the size limit. */
    private Uni<List<Object>> sendable(
            Pool pool,
            PlacedQueue outside,
            UUID clientId,
            DeduplicationKeys.Settings settings,
            List<SqsMessages.Checked> messages,
            List<String> dedupIds,
            List<Object> outcomes,
            boolean first) {
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i) instanceof SqsMessages.Checked) {
                at.add(i);
            }
        }
        if (at.isEmpty()) {
            return Uni.createFrom().item(outcomes);
        }
        List<SqsMessageStore.Outgoing> outgoing = new ArrayList<>(at.size());
        List<String> keys = new ArrayList<>(at.size());
        long largest = 0;
        for (int i : at) {
            SqsMessages.Checked checked = messages.get(i);
            outgoing.add(checked.outgoing(dedupIds.get(i)));
            keys.add(DeduplicationKeys.key(
                    settings, dedupIds.get(i), checked.message().groupId()));
            largest = Math.max(largest, checked.size());
        }
        int checkedSize = (int) Math.min(largest, Integer.MAX_VALUE);
        AtomicLong notifications = new AtomicLong();
        Uni<long[]> once = sealing.sealedAsTheQueueAsks(
                outside,
                outgoing,
                (toStore, keyId) -> pool.withTransaction(tx -> {
                    notifications.set(0);
                    PlacedQueue placed = new PlacedQueue(tx, outside.project(), outside.name());
                    return deduplication
                            .settings(placed)
                            .chain(marked -> deduplication.post(placed, keys, indexes -> store.send(
                                            placed,
                                            clientId,
                                            indexes.stream().map(toStore::get).toList(),
                                            checkedSize,
                                            config.maxMessagesPostSize(),
                                            config.defaultMessageTtl(),
                                            keyId)
                                    .map(sent -> {
                                        if (sent.maxSize() == null) {
                                            throw SqsMessages.noQueue();
                                        }
                                        if (sent.ids().length == 0) {
                                            throw new TooLong(sent.maxSize());
                                        }
                                        notifications.addAndGet(sent.notifications());
                                        return sent.ids();
                                    })));
                }));
        return DatabaseFailures.retriedOnConflict(once)
                .call(ids -> {
                    metrics.posted(outside.project(), outside.storedName(), ids.length);
                    return deliveries.notificationsQueued(pool, notifications.get());
                })
                .map(ids -> {
                    for (int j = 0; j < at.size(); j++) {
                        SqsMessages.Checked checked = messages.get(at.get(j));
                        SentMessage sent = SqsMessages.withId(checked.answer(), ids[j]);
                        outcomes.set(
                                at.get(j),
                                new SentMessage(
                                        sent.messageId(),
                                        sent.md5OfMessageBody(),
                                        sent.md5OfMessageAttributes(),
                                        sent.md5OfMessageSystemAttributes(),
                                        SequenceNumbers.of(ids[j])));
                    }
                    return outcomes;
                })
                .onFailure(TooLong.class)
                .recoverWithUni(failure -> {
                    int maxSize = ((TooLong) failure).maxSize;
                    if (!first) {
                        throw SqsMessages.tooLongFor(maxSize);
                    }
                    for (int i : at) {
                        if (messages.get(i).size() > maxSize) {
                            outcomes.set(i, SqsMessages.tooLongFor(maxSize));
                        }
                    }
                    return sendable(pool, outside, clientId, settings, messages, dedupIds, outcomes, false);
                });
    }
}
