package io.pigeon.claim;

import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.Ordering;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * A queue's groups as an operator reads them (decision 0020): on a {@link Ordering#FIFO} queue, the groups a live claim
 * holds (blocked: none of their messages is claimed until that claim is deleted, released or ends) and each group's
 * oldest waiting message (the next one a claim takes of it); nothing on a queue of another ordering, whose groups never
 * block. Each list is of the first {@value #SHOWN} groups in group order, and says when there are more: a queue may
 * have 100,000 groups, and a page reads a page of them.
 */
@ApplicationScoped
public class FifoGroups {

    /** Groups each list holds at most. */
    public static final int SHOWN = 100;

    /**
     * What was read: the queue's ordering, its blocked groups and its waiting ones (empty unless fifo), and whether
     * either list was cut at {@value #SHOWN}.
     */
    public record Groups(
            Ordering ordering,
            List<GroupStore.Blocked> blocked,
            boolean moreBlocked,
            List<GroupStore.Waiting> waiting,
            boolean moreWaiting) {

        /** Groups each list holds at most. */
        public int shown() {
            return SHOWN;
        }
    }

    private final QueueDatabases databases;
    private final GroupStore store;

    public FifoGroups(QueueDatabases databases, GroupStore store) {
        this.databases = databases;
        this.store = store;
    }

    /** The groups of the project's queue, whose ordering (its metadata's) is {@code ordering}. */
    public Uni<Groups> of(String project, QueueName queue, Ordering ordering) {
        if (ordering != Ordering.FIFO) {
            return Uni.createFrom().item(new Groups(ordering, List.of(), false, List.of(), false));
        }
        return PlacedQueue.of(databases, project, queue).chain(placed -> Uni.combine()
                .all()
                .unis(store.blocked(placed, SHOWN + 1), store.waiting(placed, SHOWN + 1))
                .with((blocked, waiting) -> new Groups(
                        ordering,
                        blocked.subList(0, Math.min(SHOWN, blocked.size())),
                        blocked.size() > SHOWN,
                        waiting.subList(0, Math.min(SHOWN, waiting.size())),
                        waiting.size() > SHOWN)));
    }
}
