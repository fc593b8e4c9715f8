package io.pigeon.message;

import io.pigeon.config.PigeonConfig;
import io.pigeon.observability.MessagingOperation;
import io.pigeon.observability.MessagingSpans;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.pigeon.waiting.QueueWaits;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Pops: taking and deleting the free messages a claim of the queue's ordering would take, in one statement, at once
 * or waiting for them (Pigeon's long polling, {@link QueueWaits}); apart from posting and reading messages
 * ({@link MessageService}) and from deleting them by id ({@link MessageDeletes}).
 */
@ApplicationScoped
public class MessagePops {

    private final MessageStore store;
    private final QueueDatabases databases;
    private final PigeonConfig config;
    private final QueueMetrics metrics;
    private final UnreadableMessages unreadable;
    private final QueueWaits waits;
    private final MessagingSpans spans;

    public MessagePops(
            MessageStore store,
            QueueDatabases databases,
            PigeonConfig config,
            QueueMetrics metrics,
            UnreadableMessages unreadable,
            QueueWaits waits,
            MessagingSpans spans) {
        this.spans = spans;
        this.store = store;
        this.databases = databases;
        this.config = config;
        this.metrics = metrics;
        this.unreadable = unreadable;
        this.waits = waits;
    }

    /** Takes and deletes up to {@code count} (1..max-messages-per-page) of the oldest free messages. */
    public Uni<List<Message>> pop(String project, QueueName queue, Integer count) {
        if (count == null || count < 1 || count > config.maxMessagesPerPage()) {
            throw Rejection.invalidRequest(
                    "Pop value must be at least 1 and may not be greater than " + config.maxMessagesPerPage() + ".");
        }
        return spans.consuming(
                MessagingOperation.POP,
                project,
                queue.value(),
                PlacedQueue.of(databases, project, queue).chain(placed -> popOnce(placed, count)),
                List::size,
                Message::producers);
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
        return spans.consuming(
                MessagingOperation.POP,
                project,
                queue.value(),
                popWaiting(project, grant, queue, count, wait, connected),
                popped -> popped.map(List::size).orElse(0),
                popped -> popped.map(Message::producers).orElse(List.of()));
    }

    private Uni<Optional<List<Message>>> popWaiting(
            String project, String grant, QueueName queue, int count, Integer wait, BooleanSupplier connected) {
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
}
