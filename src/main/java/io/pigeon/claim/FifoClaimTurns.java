package io.pigeon.claim;

import io.pigeon.storage.StatementObserver;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Lets one fifo claim statement per queue run from this replica at a time, and takes the queue's claims that arrived
 * meanwhile together in the next one.
 *
 * <p>One at a time: the database serializes a queue's fifo claims anyway (migration V31's {@code pigeon_fifo_free}
 * takes the queue's advisory lock), but a claim waiting for that lock holds one of the replica's pooled connections
 * while it waits: a tenant sending many concurrent claims to one fifo queue whose claims are slow (a blocked group with
 * a long backlog ahead of the eligible messages) took every connection of the pool and stalled every other project's
 * requests on the replica for seconds. Waiting here costs an entry per waiting request (which holds its HTTP request
 * anyway), and a claim whose caller is gone before its turn (its {@code Uni} cancelled) never runs.
 *
 * <p>Together: a fifo claim's cost is the queue's lock held through its commit's WAL flush, so one statement per claim
 * served about one claim per flush per queue, however many consumers waited; the claims waiting here when a statement
 * ends go to the next one, at most {@link #MOST_TOGETHER} of them (migration V34 hands each its own groups, as if
 * they ran one after the other, in their order of arrival). Each claim is answered on the Vert.x context it was asked
 * from.
 *
 * @param <R> a claim to take
 * @param <A> a claim's answer
 */
final class FifoClaimTurns<R, A> {

    /**
     * The most claims of one queue in one statement: the statement's time under the queue's lock grows with it (one
     * pick per claim and group), and the claims behind it wait that long.
     */
    static final int MOST_TOGETHER = 32;

    /** Takes claims of one queue in one statement: an answer per claim, in their order. */
    private final Function<List<R>, Uni<List<A>>> statement;

    /** The claims waiting for their turn, per queue with a statement in flight; guarded by {@code this}. */
    private final Map<Object, ArrayDeque<Turn>> queues = new HashMap<>();

    /** Told of each statement and the claims it carries (their count; a span where traced). */
    private final StatementObserver observer;

    FifoClaimTurns(Function<List<R>, Uni<List<A>>> statement, StatementObserver observer) {
        this.statement = statement;
        this.observer = observer;
    }

    /**
     * The answer of {@code claim}, taken once no other fifo claim statement of {@code queue} (a key equal for the
     * claims of one queue on one database) from here is in flight.
     */
    Uni<A> inTurn(Object queue, R claim) {
        return Uni.createFrom().emitter(emitter -> {
            Turn turn = new Turn(claim, emitter, Vertx.currentContext(), observer.requester());
            emitter.onTermination(turn::leave);
            boolean now;
            synchronized (this) {
                ArrayDeque<Turn> waiting = queues.get(queue);
                now = waiting == null;
                if (now) {
                    queues.put(queue, new ArrayDeque<>());
                } else {
                    waiting.add(turn);
                }
            }
            if (now) {
                run(queue, List.of(turn));
            }
        });
    }

    /** How many queues have a fifo claim in flight from this replica (for tests: zero once every answer is in). */
    synchronized int busyQueues() {
        return queues.size();
    }

    /** How many fifo claims wait here for their queue's statement (for tests). */
    synchronized int waiting() {
        int waiting = 0;
        for (ArrayDeque<Turn> turns : queues.values()) {
            waiting += turns.size();
        }
        return waiting;
    }

    /** Takes the claims of {@code turns} still wanted in one statement; the queue's next ones start when it has ended. */
    private void run(Object queue, List<Turn> turns) {
        List<Turn> wanted = new ArrayList<>(turns.size());
        List<R> claims = new ArrayList<>(turns.size());
        List<Object> requesters = new ArrayList<>(turns.size());
        for (Turn turn : turns) {
            if (!turn.left) {
                wanted.add(turn);
                claims.add(turn.claim);
                requesters.add(turn.requester);
            }
        }
        if (wanted.isEmpty()) {
            next(queue);
            return;
        }
        observer.ran(requesters, Uni.createFrom().deferred(() -> statement.apply(claims)))
                .subscribe()
                .with(
                        answers -> {
                            next(queue);
                            for (int i = 0; i < wanted.size(); i++) {
                                wanted.get(i).answer(answers.get(i));
                            }
                        },
                        failure -> {
                            next(queue);
                            for (Turn turn : wanted) {
                                turn.fail(failure);
                            }
                        });
    }

    /** After a statement of {@code queue}: starts the next with the claims waiting, or marks the queue idle. */
    private void next(Object queue) {
        List<Turn> turns = new ArrayList<>();
        synchronized (this) {
            ArrayDeque<Turn> waiting = queues.get(queue);
            while (turns.size() < MOST_TOGETHER && !waiting.isEmpty()) {
                Turn turn = waiting.poll();
                if (!turn.left) {
                    turns.add(turn);
                }
            }
            if (turns.isEmpty()) {
                queues.remove(queue);
                return;
            }
        }
        turns.get(0).onOwnContext(() -> run(queue, turns));
    }

    private final class Turn {
        private final R claim;
        private final UniEmitter<? super A> emitter;
        private final Context context;
        /** Who asked, as the observer names it (the caller's span). */
        private final Object requester;
        /** The caller is gone (or answered): a turn not started yet is passed over. */
        private volatile boolean left;

        Turn(R claim, UniEmitter<? super A> emitter, Context context, Object requester) {
            this.claim = claim;
            this.emitter = emitter;
            this.context = context;
            this.requester = requester;
        }

        void leave() {
            left = true;
        }

        void answer(A answer) {
            onOwnContext(() -> emitter.complete(answer));
        }

        void fail(Throwable failure) {
            onOwnContext(() -> emitter.fail(failure));
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
