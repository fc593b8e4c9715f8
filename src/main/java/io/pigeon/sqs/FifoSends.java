package io.pigeon.sqs;

import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.message.Deduplication;
import io.pigeon.message.DeduplicationKeys;
import io.pigeon.message.MessageStore;
import io.pigeon.message.NewMessage;
import io.pigeon.observability.MessagingOperation;
import io.pigeon.observability.MessagingSpans;
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
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * SendMessage(Batch) to a FIFO queue: every message deduplicated on the idempotency store ({@link Deduplication}) by its
 * MessageDeduplicationId, or its body's SHA-256 on a queue with ContentBasedDeduplication (else refused, as AWS does),
 * per queue or per group as the queue's DeduplicationScope says; in one transaction that takes the keys, stores the new
 * messages with their groups and remembers them, again whole on a conflict. The messages are stored by the statement
 * every send and Zaqar post shares (MessageStore's creating post, as a post that never creates its queue), run alone
 * on the transaction: a statement of a transaction cannot be shared with other requests. A repeat within the window
 * stores nothing and answers the first message's id and SequenceNumber.
 *
 * <p>A standard queue's send comes here too when the shared statement refused it because a queue deduplicates by
 * content (only the Zaqar API sets that on a queue without a {@code .fifo} name; or a Zaqar post to such a queue
 * shared its statement): its messages take a key only when their own queue deduplicates by content, need none, and
 * answer no SequenceNumber.
 */
@ApplicationScoped
public class FifoSends {

    private final MessageStore store;
    private final QueueDatabases databases;
    private final PigeonConfig config;
    private final QueueMetrics metrics;
    private final DispatchService deliveries;
    private final Deduplication deduplication;
    private final SqsSealing sealing;
    private final MessagingSpans spans;

    public FifoSends(
            MessageStore store,
            QueueDatabases databases,
            PigeonConfig config,
            QueueMetrics metrics,
            DispatchService deliveries,
            Deduplication deduplication,
            MessageCipher cipher,
            MessagingSpans spans) {
        this.store = store;
        this.databases = databases;
        this.config = config;
        this.metrics = metrics;
        this.deliveries = deliveries;
        this.deduplication = deduplication;
        this.sealing = new SqsSealing(cipher);
        this.spans = spans;
    }

    /**
     * Stores {@code outgoing} in the transaction of {@code tx} (a post that never creates its queue); over the queue's
     * post-size limit ({@code largest}) none.
     */
    private Uni<MessageStore.Posted> stored(
            PlacedQueue tx,
            UUID clientId,
            String producer,
            List<SqsMessageStore.Outgoing> outgoing,
            int largest,
            String keyId) {
        List<NewMessage> messages = NewMessage.producedBy(
                outgoing.stream().map(SqsMessageStore.Outgoing::message).toList(), producer);
        List<String> attributes =
                outgoing.stream().map(SqsMessageStore.Outgoing::attributes).toList();
        return store.postCreatingQueue(
                        List.of(new MessageStore.NewPost(tx, keyId, clientId, messages, largest, attributes, false)),
                        false,
                        config.maxMessagesPostSize(),
                        config.defaultMessageTtl())
                .map(posted -> posted.get(0));
    }

    /** A batch's messages over the queue's size limit: the transaction is undone, and they are refused. */
    private static final class TooLong extends RuntimeException {
        final int maxSize;

        TooLong(int maxSize) {
            super("too long", null, false, false);
            this.maxSize = maxSize;
        }
    }

    /**
     * One message sent here: a FIFO queue's, or a standard queue's refused by the shared statement because a queue
     * deduplicates by content (see the class).
     */
    Uni<SentMessage> sendOne(
            String project, QueueName queue, UUID clientId, SqsMessages.Checked checked, boolean fifo) {
        return send(project, queue, clientId, List.of(checked), fifo).map(outcomes -> {
            if (outcomes.get(0) instanceof SqsRefusal refusal) {
                throw refusal;
            }
            return (SentMessage) outcomes.get(0);
        });
    }

    /** A batch's accepted entries sent here (see {@link #sendOne}), in entry order. */
    Uni<List<EntryOutcome<SentMessage>>> sendBatch(
            String project,
            QueueName queue,
            UUID clientId,
            List<String> ids,
            List<SqsMessages.Checked> accepted,
            Map<String, Object> checkedOrRefused,
            boolean fifo) {
        return send(project, queue, clientId, accepted, fifo).map(sent -> {
            for (int i = 0; i < ids.size(); i++) {
                checkedOrRefused.put(ids.get(i), sent.get(i));
            }
            List<EntryOutcome<SentMessage>> outcomes = new ArrayList<>(checkedOrRefused.size());
            checkedOrRefused.forEach((id, outcome) -> outcomes.add(
                    outcome instanceof SentMessage message
                            ? EntryOutcome.succeeded(id, message)
                            : EntryOutcome.failed(id, (SqsRefusal) outcome)));
            return outcomes;
        });
    }

    /**
     * Sends {@code messages} to a FIFO queue or ({@code fifo} false) a standard one; per message, in their order, its
     * {@link SentMessage} or its {@link SqsRefusal}.
     */
    Uni<List<Object>> send(
            String project, QueueName queue, UUID clientId, List<SqsMessages.Checked> messages, boolean fifo) {
        // A producer span as a standard queue's shared send has (MessageService.send): the context its messages carry.
        return spans.producing(MessagingOperation.SEND, project, queue.value(), messages.size(), producer -> databases
                .of(project, queue.value())
                .chain(pool -> {
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
                            outcomes.add(dedupId == null && fifo ? MessageGroupRules.noDeduplicationId() : checked);
                        }
                        return sendable(
                                pool, outside, clientId, producer, settings, messages, dedupIds, outcomes, fifo, true);
                    });
                }));
    }

    /** Stores the messages whose outcome is still their Checked; once more without those over the size limit. */
    private Uni<List<Object>> sendable(
            Pool pool,
            PlacedQueue outside,
            UUID clientId,
            String producer,
            DeduplicationKeys.Settings settings,
            List<SqsMessages.Checked> messages,
            List<String> dedupIds,
            List<Object> outcomes,
            boolean fifo,
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
            // A standard queue's message shows no MessageDeduplicationId, even when its content gave it a key.
            outgoing.add(checked.outgoing(fifo ? dedupIds.get(i) : null));
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
                            .chain(marked -> deduplication.post(placed, keys, indexes -> stored(
                                            placed,
                                            clientId,
                                            producer,
                                            indexes.stream().map(toStore::get).toList(),
                                            checkedSize,
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
                                        fifo ? SequenceNumbers.of(ids[j]) : null));
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
                    return sendable(
                            pool, outside, clientId, producer, settings, messages, dedupIds, outcomes, fifo, false);
                });
    }
}
