package io.pigeon.message;

import io.pigeon.observability.QueueMetrics;
import io.pigeon.queue.PlacedQueue;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * What becomes of stored messages whose sealed body does not open (a key no longer configured, a changed row): they
 * are never answered, and never make a request fail for the messages beside them. A read leaves them out; a claim or
 * a pop, which has taken them in the statement that took the others, sets them aside (see {@link SetAsideStore}), so
 * that nothing stays claimed or deleted that its caller was not told about, and the queue's head is not blocked.
 * Each is reported to the operator: a log line naming the project, the queue, the message and the key (never the
 * body), and the counter {@code pigeon_messages_unreadable_total} by outcome.
 */
@ApplicationScoped
public class UnreadableMessages {

    private static final Logger LOG = Logger.getLogger(UnreadableMessages.class);

    private final SetAsideStore store;
    private final QueueMetrics metrics;

    public UnreadableMessages(SetAsideStore store, QueueMetrics metrics) {
        this.store = store;
        this.metrics = metrics;
    }

    /** Reports rows a read left out of its answer. */
    public void leftOut(PlacedQueue queue, List<MessageRows.Unopened> rows) {
        if (!rows.isEmpty()) {
            report(queue, rows, "left out of a read", "left_out");
        }
    }

    /** Keeps aside the rows a pop deleted and did not answer; never fails (a failure is logged). */
    public Uni<Void> keepPopped(PlacedQueue queue, List<MessageRows.Unopened> rows) {
        return setAside(
                queue,
                rows,
                unopened -> store.keepPopped(
                        queue.db(),
                        unopened.stream().map(MessageRows.Unopened::row).toList()));
    }

    /**
     * Sets aside rows that claims {@code claimIds} have just taken and not answered, and takes them out of those
     * claims; never fails (a failure is logged: the rows are then held by their claim until it ends).
     */
    public Uni<Void> setAsideClaimed(
            PlacedQueue queue, long queueId, List<MessageRows.Unopened> rows, UUID[] claimIds) {
        return setAside(
                queue,
                rows,
                unopened -> store.setAsideClaimed(
                        queue.db(),
                        queueId,
                        unopened.stream().mapToLong(MessageRows.Unopened::id).toArray(),
                        claimIds));
    }

    /** Sets aside rows moved to a dead-letter queue that could not be sealed again for it; never fails. */
    public Uni<Void> setAsideResealing(PlacedQueue queue, long queueId, List<MessageRows.Unopened> rows) {
        return setAside(
                queue,
                rows,
                unopened -> store.setAsideResealing(
                        queue.db(),
                        queueId,
                        unopened.stream().mapToLong(MessageRows.Unopened::id).toArray()));
    }

    private Uni<Void> setAside(
            PlacedQueue queue,
            List<MessageRows.Unopened> rows,
            Function<List<MessageRows.Unopened>, Uni<Void>> statement) {
        if (rows.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        return statement
                .apply(rows)
                .invoke(() -> report(queue, rows, "set aside (table messages_set_aside)", "set_aside"))
                .onFailure()
                .recoverWithItem(failure -> {
                    report(queue, rows, "not set aside (" + failure + ")", "not_set_aside");
                    return null;
                });
    }

    private void report(PlacedQueue queue, List<MessageRows.Unopened> rows, String what, String outcome) {
        for (MessageRows.Unopened row : rows) {
            LOG.errorf(
                    "Message %d of queue %s of project %s does not open, %s: %s",
                    row.id(), queue.storedName(), queue.project(), what, row.reason());
        }
        metrics.unreadable(outcome, rows.size());
    }
}
