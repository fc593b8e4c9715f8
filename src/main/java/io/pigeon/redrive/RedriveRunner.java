package io.pigeon.redrive;

import io.pigeon.pool.PoolClients;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Runs the redrive tasks this replica holds the lease of, each at its rate, batch after batch, until it is done,
 * cancelled, failed or taken over.
 *
 * <p>Which replica runs a task is decided in the database, as for the dispatcher's groups: a task is leased (a token
 * and an end, migration V21) to the replica that started it, when it had room, and every batch renews the lease; every
 * {@code pigeon.redrive.poll-interval} each replica with room leases, on every database, the running tasks whose lease
 * has lapsed (their replica died, stopped or lost its database). A batch shows its lease and its progress: a replica
 * whose lease was taken over, or whose task was cancelled, moves nothing more.
 *
 * <p>The rate is kept by a token bucket filled at the rate and holding one second of it (at least one batch): a batch
 * (a fifth of the rate, at least one message, at most {@code pigeon.redrive.max-batch}) waits until the bucket holds
 * as many, takes them out, and puts back what it did not move once it is done (the bucket fills on while its statement
 * runs). So a task moves its rate per second on average, a batch whose statement was slow (the database was busy) is
 * made up for by the next ones, and it is never more than one second of its rate ahead. A replica that takes a task
 * over starts with an empty bucket. The bucket is this replica's own, on its monotonic clock: no other replica
 * runs the task meanwhile, and nothing about it is stored.
 *
 * <p>A project holds at most {@code pigeon.redrive.max-running-per-project-per-replica} of a replica's
 * {@code max-running-per-replica} places: its further tasks are started without a lease and wait, so that another
 * project's task finds a place at once, where one project's tasks at rate 1 used to hold every place for hours.
 */
@ApplicationScoped
public class RedriveRunner {

    private static final Logger LOG = Logger.getLogger(RedriveRunner.class);

    /** Batches per second at most; a task's batch is its rate divided by this. */
    static final int BATCHES_PER_SECOND = 5;

    /** Pause before a batch that failed (the database did not answer, a deadlock) is tried again. */
    private static final long FAILURE_PAUSE_MILLIS = 1000;

    /** How long a stopping replica waits to give its tasks back. */
    private static final Duration GIVE_BACK_TIMEOUT = Duration.ofSeconds(5);

    private final RedriveStore store;
    private final PoolClients poolClients;
    private final Vertx vertx;
    private final RedriveSettings config;
    private final long leaseMillis;

    /** The tasks this replica runs, by id. */
    private final Map<UUID, Run> runs = new ConcurrentHashMap<>();
    /**
     * Runs, and starts or looks that reserved a place for a run: never more than {@code max-running-per-replica}.
     * Guarded by {@code this}, with {@link #heldByProject}.
     */
    private int places;
    /** Places held per project (its runs and reserved starts): at most {@code max-running-per-project-per-replica}. */
    private final Map<String, Integer> heldByProject = new HashMap<>();

    private volatile boolean stopping;

    public RedriveRunner(RedriveStore store, PoolClients poolClients, Vertx vertx, RedriveSettings redriveSettings) {
        this.store = store;
        this.poolClients = poolClients;
        this.vertx = vertx;
        this.config = redriveSettings;
        this.leaseMillis = this.config.lease().toMillis();
    }

    /** How long a lease lasts from its last renewal, in milliseconds. */
    long leaseMillis() {
        return leaseMillis;
    }

    /**
     * Reserves a place for a task of {@code project} about to start here; false when this replica runs as many as it
     * may, or as many of the project's as it may.
     */
    synchronized boolean reserve(String project) {
        if (stopping
                || places >= config.maxRunningPerReplica()
                || heldByProject.getOrDefault(project, 0) >= config.maxRunningPerProjectPerReplica()) {
            return false;
        }
        places++;
        heldByProject.merge(project, 1, Integer::sum);
        return true;
    }

    /** Gives back a place {@link #reserve} took for a task that did not start, or that a run held. */
    synchronized void unreserve(String project) {
        places--;
        heldByProject.computeIfPresent(project, (key, held) -> held > 1 ? held - 1 : null);
    }

    /** Runs a task leased to this replica, in a place reserved for it. */
    void run(SqlClient db, RedriveStore.Leased task) {
        if (stopping) {
            // Taken while this replica began to stop: given back at once, for another replica.
            unreserve(task.project());
            store.giveBack(db, List.of(task))
                    .subscribe()
                    .with(
                            ignored -> {},
                            failure -> LOG.warnf("Could not give back redrive task %s: %s", task.id(), failure));
            return;
        }
        Run run = new Run(db, task);
        runs.put(task.id(), run);
        run.next();
    }

    /** The tasks this replica runs now (for tests). */
    public int running() {
        return runs.size();
    }

    /** Leases, database after database, the running tasks no replica holds, as many as this replica has room for. */
    @Scheduled(
            every = "${pigeon.redrive.poll-interval}",
            delayed = "3s",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    Uni<Void> takeUnheld() {
        synchronized (this) {
            if (stopping || places >= config.maxRunningPerReplica()) {
                return Uni.createFrom().voidItem();
            }
        }
        return poolClients
                .everyDatabase()
                .chain(databases -> takeFrom(databases, 0))
                .onFailure()
                .invoke(failure -> LOG.warnf("Could not look for redrive tasks to run, will retry: %s", failure))
                .onFailure()
                .recoverWithNull()
                .replaceWithVoid();
    }

    private Uni<Void> takeFrom(List<PoolClients.Named> databases, int next) {
        int room;
        Map<String, Integer> held;
        synchronized (this) {
            room = config.maxRunningPerReplica() - places;
            if (next >= databases.size() || room <= 0 || stopping) {
                return Uni.createFrom().voidItem();
            }
            // The room is held while the statement runs, so that starts meanwhile cannot overfill the replica.
            places += room;
            held = Map.copyOf(heldByProject);
        }
        PoolClients.Named database = databases.get(next);
        return store.take(database.client(), room, leaseMillis, held, config.maxRunningPerProjectPerReplica())
                .onTermination()
                .invoke((taken, failure, cancelled) -> {
                    synchronized (this) {
                        places -= room;
                    }
                })
                .invoke(taken -> startTaken(database.client(), taken))
                .onFailure()
                .recoverWithItem(failure -> {
                    LOG.warnf("Could not look for redrive tasks on %s, will retry: %s", database.describe(), failure);
                    return List.of();
                })
                .chain(taken -> takeFrom(databases, next + 1));
    }

    /**
     * Runs the tasks a look leased, each in a place of its own; one whose project got its share here meanwhile (a start
     * while the statement ran) is given back at once, for a later look.
     */
    private void startTaken(SqlClient db, List<RedriveStore.Leased> taken) {
        List<RedriveStore.Leased> over = new ArrayList<>();
        for (RedriveStore.Leased task : taken) {
            if (reserve(task.project())) {
                run(db, task);
            } else {
                over.add(task);
            }
        }
        if (!over.isEmpty()) {
            store.giveBack(db, over)
                    .subscribe()
                    .with(
                            ignored -> {},
                            failure -> LOG.warnf(
                                    "Could not give back %d redrive tasks; they are taken once their lease lapses: %s",
                                    over.size(), failure));
        }
    }

    /**
     * Stops every run and gives its task back, so that another replica takes it at its next look: as soon as the
     * replica begins to stop (its readiness goes down, while requests are still served), or when it stops.
     */
    void stop(@Observes ShutdownDelayInitiatedEvent shutdown) {
        stopAll();
    }

    void stop(@Observes ShutdownEvent shutdown) {
        stopAll();
    }

    private void stopAll() {
        stopping = true;
        Map<SqlClient, List<RedriveStore.Leased>> held = new IdentityHashMap<>();
        for (Run run : runs.values()) {
            run.stopped = true;
            held.computeIfAbsent(run.db, db -> new ArrayList<>()).add(run.task);
        }
        held.forEach((db, tasks) -> {
            try {
                store.giveBack(db, tasks).await().atMost(GIVE_BACK_TIMEOUT);
            } catch (RuntimeException e) {
                LOG.warnf(
                        "Could not give back %d redrive tasks; they are taken once their lease lapses: %s",
                        tasks.size(), e.toString());
            }
        });
    }

    /** One task run by this replica. Its methods run one after the other (each starts the next when it ends). */
    private final class Run {
        final SqlClient db;
        final RedriveStore.Leased task;
        final int rate;
        /** Messages per batch. */
        final int batch;
        /** What the bucket holds at most: one second of the rate, at least one batch. */
        final int capacity;

        long lastId;
        double tokens;
        long filledAt = System.nanoTime();
        volatile boolean stopped;

        Run(SqlClient db, RedriveStore.Leased task) {
            this.db = db;
            this.task = task;
            this.rate = task.rate();
            this.batch = batchOf(task.rate(), config.maxBatch());
            this.capacity = Math.max(batch, rate);
            this.lastId = task.lastId();
        }

        /** Waits until the bucket holds a batch, then moves it. */
        void next() {
            if (stopped) {
                end();
                return;
            }
            fill();
            long waitMillis = (long) Math.ceil((batch - tokens) * 1000.0 / rate);
            if (waitMillis <= 0) {
                move();
            } else {
                vertx.setTimer(waitMillis, id -> move());
            }
        }

        private void fill() {
            long now = System.nanoTime();
            tokens = Math.min(capacity, tokens + rate * ((now - filledAt) / 1e9));
            filledAt = now;
        }

        private void move() {
            if (stopped) {
                end();
                return;
            }
            // The batch is taken out of the bucket now, and what it did not move is put back when it is done: the
            // bucket goes on filling while the statement runs.
            fill();
            tokens -= batch;
            store.batch(db, task, lastId, batch, leaseMillis)
                    .subscribe()
                    .with(
                            outcome -> {
                                if (outcome.isEmpty()) {
                                    end(); // cancelled, or no longer this replica's
                                    return;
                                }
                                RedriveStore.Batch done = outcome.get();
                                tokens += batch - done.moved();
                                fill();
                                lastId = done.lastId();
                                if (done.state() == RedriveTask.State.RUNNING) {
                                    next();
                                } else {
                                    end();
                                }
                            },
                            failure -> {
                                LOG.warnf(
                                        "A batch of redrive task %s failed, will retry: %s",
                                        task.id(), failure.toString());
                                tokens += batch;
                                if (!stopped) {
                                    vertx.setTimer(FAILURE_PAUSE_MILLIS, id -> next());
                                } else {
                                    end();
                                }
                            });
        }

        private void end() {
            if (runs.remove(task.id(), this)) {
                unreserve(task.project());
            }
        }
    }

    /** A task's batch: a fifth of its rate, at least one message, at most {@code maxBatch}. */
    static int batchOf(int rate, int maxBatch) {
        return Math.max(1, Math.min(maxBatch, (int) Math.ceil(rate / (double) BATCHES_PER_SECOND)));
    }
}
