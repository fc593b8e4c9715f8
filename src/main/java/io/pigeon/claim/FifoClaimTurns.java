package io.pigeon.claim;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Lets one fifo claim statement per queue run from this replica at a time; the queue's other fifo claims wait here,
 * in memory, holding no database connection. The database serializes a queue's fifo claims anyway (migration V31's
 * {@code pigeon_fifo_free} takes the queue's advisory lock), but a claim waiting for that lock holds one of the
 * replica's pooled connections while it waits: a tenant sending many concurrent claims to one fifo queue whose claims
 * are slow (a blocked group with a long backlog ahead of the eligible messages) took every connection of the pool and
 * stalled every other project's requests on the replica for seconds. Waiting here costs an entry per waiting request
 * (which holds its HTTP request anyway), and a claim whose caller is gone before its turn (its {@code Uni} cancelled)
 * never runs. Each claim runs and is answered on the Vert.x context it was asked from.
 */
final class FifoClaimTurns {

    /** The claims waiting for their turn, per queue with a claim in flight; guarded by {@code this}. */
    private final Map<String, ArrayDeque<Turn<?>>> queues = new HashMap<>();

    /** The answer of {@code claim}, run once no other fifo claim of {@code queue} from this replica is in flight. */
    <T> Uni<T> inTurn(String queue, Supplier<Uni<T>> claim) {
        return Uni.createFrom().emitter(emitter -> {
            Turn<T> turn = new Turn<>(queue, claim, emitter, Vertx.currentContext());
            emitter.onTermination(turn::leave);
            boolean now;
            synchronized (this) {
                ArrayDeque<Turn<?>> waiting = queues.get(queue);
                now = waiting == null;
                if (now) {
                    queues.put(queue, new ArrayDeque<>());
                } else {
                    waiting.add(turn);
                }
            }
            if (now) {
                turn.run();
            }
        });
    }

    /** How many queues have a fifo claim in flight from this replica (for tests: zero once every answer is in). */
    synchronized int busyQueues() {
        return queues.size();
    }

    /** After a claim of {@code queue}: starts the next one still wanted, or marks the queue idle. */
    private void next(String queue) {
        while (true) {
            Turn<?> turn;
            synchronized (this) {
                ArrayDeque<Turn<?>> waiting = queues.get(queue);
                turn = waiting.poll();
                if (turn == null) {
                    queues.remove(queue);
                    return;
                }
            }
            if (!turn.left) {
                turn.onOwnContext(turn::run);
                return;
            }
        }
    }

    private final class Turn<T> {
        private final String queue;
        private final Supplier<Uni<T>> claim;
        private final UniEmitter<? super T> emitter;
        private final Context context;
        /** The caller is gone (or answered): a turn not started yet is passed over. */
        private volatile boolean left;

        Turn(String queue, Supplier<Uni<T>> claim, UniEmitter<? super T> emitter, Context context) {
            this.queue = queue;
            this.claim = claim;
            this.emitter = emitter;
            this.context = context;
        }

        void leave() {
            left = true;
        }

        /** Runs the claim; the next turn of the queue starts when its statement has ended, whatever its outcome. */
        void run() {
            if (left) {
                next(queue);
                return;
            }
            Uni.createFrom()
                    .deferred(() -> claim.get())
                    .subscribe()
                    .with(
                            answer -> {
                                next(queue);
                                onOwnContext(() -> emitter.complete(answer));
                            },
                            failure -> {
                                next(queue);
                                onOwnContext(() -> emitter.fail(failure));
                            });
        }

        void onOwnContext(Runnable action) {
            if (context == null || context == Vertx.currentContext()) {
                action.run();
            } else {
                context.runOnContext(ignored -> action.run());
            }
        }
    }
}
