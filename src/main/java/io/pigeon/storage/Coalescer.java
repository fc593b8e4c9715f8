package io.pigeon.storage;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.impl.ContextInternal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.ToIntFunction;

/**
 * Lets concurrent requests of one kind on one key (a database, whatever the queues) share statements, without waiting for
 * company: a request finding its key idle runs at once, alone; requests arriving while that statement is in flight
 * wait and then run together in the next one, as many as the bounds allow (the rest in the one after). So a lone
 * client pays nothing, and under load the number of statements (and commits) per request falls as requests pile up.
 *
 * <p>{@code together} runs a list of requests as one statement and answers one answer per request, in their order;
 * an answer may itself say that its request was refused (the caller's answer, not the batch's). When the shared
 * statement fails as a whole (a guard that raises, a conflict), nothing of it was stored, and each request is run
 * again alone, so that each caller gets exactly the answer or error it would have got by itself.
 *
 * <p>With a window ({@code pigeon.coalescing.window}), a request that finds its key idle while the key's last statement
 * carried more than one request waits up to the window before its statement starts, for the others that are likely
 * to follow (clients answered together ask again together); a key whose last statement ran alone still runs at once,
 * so a lone client never waits.
 *
 * <p>Answers are handed to each caller on the Vert.x context it asked from, whichever thread ran the statement.
 *
 * @param <K> the key requests share statements by; equal keys must be runnable in one statement
 * @param <R> a request
 * @param <A> one request's answer
 */
public final class Coalescer<K, R, A> {

    private final BiFunction<K, List<R>, Uni<List<A>>> together;
    private final ToIntFunction<R> rows;
    private final ToIntFunction<R> bytes;
    private final CoalescingSettings bounds;
    private final StatementObserver observer;
    private final ConcurrentHashMap<K, Lane> lanes = new ConcurrentHashMap<>();
    /** The window in nanoseconds, 0 for none. */
    private final long window;
    /** Keys whose last statement carried more than one request (kept only with a window). */
    private final ConcurrentHashMap<K, Boolean> lastShared = new ConcurrentHashMap<>();

    /**
     * @param together   runs requests of one key in one statement, one answer each in their order
     * @param rows       a request's rows (messages posted, asked for, or named), bounded per statement
     * @param bytes      a request's bytes, bounded per statement (0 for requests without bodies)
     * @param bounds     whether requests share statements at all, the bounds of one, and how many of a key run at once
     * @param observer   told of every statement run and the requests it carried (a metric; a span where traced)
     */
    public Coalescer(
            BiFunction<K, List<R>, Uni<List<A>>> together,
            ToIntFunction<R> rows,
            ToIntFunction<R> bytes,
            CoalescingSettings bounds,
            StatementObserver observer) {
        this.together = together;
        this.rows = rows;
        this.bytes = bytes;
        this.bounds = bounds;
        this.observer = observer;
        this.window = bounds.enabled() ? bounds.window().toNanos() : 0;
    }

    /** The answer to {@code request}, run alone at once if nothing of its key is in flight, else with those waiting. */
    public Uni<A> submit(K key, R request) {
        if (!bounds.enabled()) {
            return alone(key, request);
        }
        return Uni.createFrom().emitter(emitter -> {
            Waiting<R, A> waiting = new Waiting<>(request, emitter, Vertx.currentContext(), observer.requester());
            while (true) {
                Lane lane = lanes.computeIfAbsent(key, Lane::new);
                boolean hold;
                synchronized (lane) {
                    if (lane.retired) {
                        continue; // it just went idle and left the map: take (or make) the current one
                    }
                    if (lane.holding || lane.inFlight >= bounds.maxInFlight()) {
                        lane.waiting.add(waiting);
                        return;
                    }
                    lane.inFlight++;
                    hold = waiting.context() != null && companyLikely(key);
                    if (hold) {
                        lane.holding = true;
                        lane.waiting.add(waiting);
                    }
                }
                if (hold) {
                    ContextInternal context = (ContextInternal) waiting.context();
                    context.nettyEventLoop()
                            .schedule(
                                    () -> context.runOnContext(ignored -> release(lane)), window, TimeUnit.NANOSECONDS);
                } else {
                    run(lane, List.of(waiting));
                }
                return;
            }
        });
    }

    /** How many keys have a statement in flight (for tests: zero once every answer is in). */
    public int busyKeys() {
        return lanes.size();
    }

    /** How many requests wait for the next statement of their key (for tests: to know they will share it). */
    public int waiting() {
        int waiting = 0;
        for (Lane lane : lanes.values()) {
            synchronized (lane) {
                waiting += lane.waiting.size();
            }
        }
        return waiting;
    }

    private Uni<A> alone(K key, R request) {
        return alone(key, request, observer.requester());
    }

    private Uni<A> alone(K key, R request, Object requester) {
        return observer.ran(
                        Collections.singletonList(requester),
                        Uni.createFrom().deferred(() -> together.apply(key, List.of(request))))
                .map(answers -> answers.get(0));
    }

    /** Whether a request finding {@code key} idle should wait the window for company. */
    private boolean companyLikely(K key) {
        return window > 0 && lastShared.getOrDefault(key, Boolean.FALSE);
    }

    /** The end of a lane's window: its statement starts with whoever waits by now, within the bounds. */
    private void release(Lane lane) {
        List<Waiting<R, A>> batch;
        synchronized (lane) {
            lane.holding = false;
            batch = take(lane);
        }
        run(lane, batch);
    }

    private void run(Lane lane, List<Waiting<R, A>> batch) {
        if (window > 0) {
            lastShared.put(lane.key, batch.size() > 1);
        }
        List<R> requests = new ArrayList<>(batch.size());
        List<Object> requesters = new ArrayList<>(batch.size());
        batch.forEach(waiting -> {
            requests.add(waiting.request());
            requesters.add(waiting.requester());
        });
        observer.ran(requesters, Uni.createFrom().deferred(() -> together.apply(lane.key, requests)))
                .subscribe()
                .with(
                        answers -> {
                            next(lane);
                            for (int i = 0; i < batch.size(); i++) {
                                batch.get(i).answer(answers.get(i));
                            }
                        },
                        failure -> {
                            next(lane);
                            if (batch.size() == 1) {
                                batch.get(0).fail(failure);
                                return;
                            }
                            // Nothing of the shared statement was stored: each request again by itself, for its own
                            // answer or error.
                            for (Waiting<R, A> waiting : batch) {
                                alone(lane.key, waiting.request(), waiting.requester())
                                        .subscribe()
                                        .with(waiting::answer, waiting::fail);
                            }
                        });
    }

    /** After a statement of the lane: starts the next with what waits, within the bounds, or has one fewer in flight. */
    private void next(Lane lane) {
        List<Waiting<R, A>> batch;
        synchronized (lane) {
            if (lane.waiting.isEmpty() || lane.holding) {
                // Held: the window's end starts the next statement of the lane.
                if (--lane.inFlight == 0) {
                    lane.retired = true;
                    lanes.remove(lane.key, lane);
                }
                return;
            }
            batch = take(lane);
        }
        run(lane, batch);
    }

    /** The waiting requests of the next statement, in their order, within the bounds; at least one. Holds the lane. */
    private List<Waiting<R, A>> take(Lane lane) {
        List<Waiting<R, A>> batch = new ArrayList<>();
        int maxRows = bounds.maxRows();
        int maxBytes = bounds.maxBytes();
        int rowCount = 0;
        int byteCount = 0;
        // At least one, whatever its size: a request within the per-request bounds always runs.
        while (!lane.waiting.isEmpty()) {
            R request = lane.waiting.peek().request();
            int requestRows = rows.applyAsInt(request);
            int requestBytes = bytes.applyAsInt(request);
            if (!batch.isEmpty() && (rowCount + requestRows > maxRows || byteCount + requestBytes > maxBytes)) {
                break;
            }
            batch.add(lane.waiting.poll());
            rowCount += requestRows;
            byteCount += requestBytes;
        }
        return Collections.unmodifiableList(batch);
    }

    /** One key's state: whether a statement is in flight and who waits for the next. Guarded by itself. */
    private final class Lane {
        final K key;
        final ArrayDeque<Waiting<R, A>> waiting = new ArrayDeque<>();
        /** Statements of the key in flight, a held one (waiting out the window) included. */
        int inFlight;
        /** A statement waits out the window: requests arriving meanwhile join it. */
        boolean holding;
        /** Idle and out of the map: a request that still found it takes the map's current lane instead. */
        boolean retired;

        Lane(K key) {
            this.key = key;
        }
    }

    private record Waiting<R, A>(R request, UniEmitter<? super A> emitter, Context context, Object requester) {

        void answer(A answer) {
            onOwnContext(() -> emitter.complete(answer));
        }

        void fail(Throwable failure) {
            onOwnContext(() -> emitter.fail(failure));
        }

        private void onOwnContext(Runnable action) {
            if (context == null || context == Vertx.currentContext()) {
                action.run();
            } else {
                context.runOnContext(ignored -> action.run());
            }
        }
    }
}
