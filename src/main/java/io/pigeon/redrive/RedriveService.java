package io.pigeon.redrive;

import io.pigeon.ids.Uuids;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.DatabaseFailures;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.UUID;

/**
 * The rules of dead-letter redrive: a task moves the messages a queue holds when it starts, each back to the queue it
 * was dead-lettered from (recorded by the sweeper's move) or all to a named target of the same project and database,
 * at a bounded rate; one runs per queue at a time, and a project holds a bounded number on each database. What a
 * message keeps and loses when it moves is the batch statement's ({@link RedriveStore#BATCH}).
 */
@ApplicationScoped
public class RedriveService {

    private final RedriveStore store;
    private final RedriveRunner runner;
    private final QueueDatabases databases;
    private final QueueService queues;
    private final RedriveSettings config;

    public RedriveService(
            RedriveStore store,
            RedriveRunner runner,
            QueueDatabases databases,
            QueueService queues,
            RedriveSettings redriveSettings) {
        this.store = store;
        this.runner = runner;
        this.databases = databases;
        this.queues = queues;
        this.config = redriveSettings;
    }

    /** What a start asks for: the target (null: each message's source) and the rate (null: the default). */
    public record Request(QueueName target, Integer rate) {
        public static final Request DEFAULTS = new Request(null, null);
    }

    /** The largest rate a task may ask for, in messages per second. */
    public int maxRate() {
        return config.maxRate();
    }

    /**
     * Starts a task that redrives {@code queue}: refused when the rate is out of bounds, the target is the queue
     * itself, does not exist or lives on another database (400), the queue does not exist (404), has a running task
     * (409), or the project runs as many tasks on the queue's database as it may (429).
     */
    public Uni<RedriveTask> start(String project, QueueName queue, Request request) {
        int rate = request.rate() == null ? Math.min(config.defaultRate(), config.maxRate()) : request.rate();
        if (rate < 1 || rate > config.maxRate()) {
            throw Rejection.invalidBody("The value of the \"rate\" field must be an integer from 1 to "
                    + config.maxRate() + " (messages per second; pigeon.redrive.max-rate).");
        }
        QueueName target = request.target();
        if (target != null && target.equals(queue)) {
            throw Rejection.invalidBody("The \"target\" field names queue " + queue
                    + " itself: a redrive moves messages to another queue.");
        }
        return databases.of(project, queue.value()).chain(db -> targetBeside(project, queue, target, db)
                .chain(() -> start(db, project, queue, target, rate)));
    }

    /** A named target must exist and live on the queue's database: a batch moves messages within one transaction. */
    private Uni<Void> targetBeside(String project, QueueName queue, QueueName target, Pool db) {
        if (target == null) {
            return Uni.createFrom().voidItem();
        }
        return queues.exists(project, target).chain(exists -> {
            if (!exists) {
                throw targetMissing(project, target);
            }
            return databases.of(project, target.value()).map(targetDb -> {
                if (targetDb != db) {
                    throw Rejection.invalidBody("The \"target\" field names queue " + target
                            + ", which lives on another pool than queue " + queue
                            + ": a redrive moves messages within one pool (name a queue of the same pool).");
                }
                return null;
            });
        });
    }

    private Uni<RedriveTask> start(Pool db, String project, QueueName queue, QueueName target, int rate) {
        boolean here = runner.reserve(project);
        UUID id = UUID.randomUUID();
        UUID lease = here ? UUID.randomUUID() : null;
        Uni<RedriveStore.Started> started = db.withTransaction(transaction -> store.start(
                new PlacedQueue(transaction, project, queue),
                target == null ? null : target.value(),
                id,
                rate,
                lease,
                runner.leaseMillis(),
                config.maxTasksPerProject()));
        return started.onFailure()
                .transform(
                        failure -> DatabaseFailures.isUniqueViolation(failure) ? runningAlready(queue, null) : failure)
                .onTermination()
                .invoke((outcome, failure, cancelled) -> {
                    if (here && (outcome == null || outcome.task().isEmpty())) {
                        runner.unreserve(project);
                    }
                })
                .map(outcome -> {
                    if (!outcome.queueFound()) {
                        throw QueueService.queueNotFound(project, queue);
                    }
                    if (!outcome.targetFound()) {
                        throw targetMissing(project, target);
                    }
                    if (outcome.runningId() != null) {
                        throw runningAlready(queue, outcome.runningId());
                    }
                    RedriveTask task = outcome.task()
                            .orElseThrow(() -> new Rejection(
                                    Rejection.Reason.QUOTA_BACKLOG,
                                    "The project runs " + config.maxTasksPerProject()
                                            + " redrive tasks on this queue's pool, its limit "
                                            + "(pigeon.redrive.max-tasks-per-project); try again when one has ended."));
                    if (here) {
                        runner.run(db, new RedriveStore.Leased(task.id(), project, lease, rate, 0));
                    }
                    return task;
                });
    }

    private static Rejection targetMissing(String project, QueueName target) {
        return Rejection.invalidBody(
                "The \"target\" field names queue " + target + ", which does not exist for project " + project + ".");
    }

    private static Rejection runningAlready(QueueName queue, UUID running) {
        return new Rejection(
                Rejection.Reason.CONFLICT,
                "Queue " + queue + " has a running redrive task" + (running == null ? "" : " (" + running + ")")
                        + "; cancel it (DELETE) or wait until it has ended.");
    }

    /** The queue's tasks, newest first: its project's only, none for a queue that does not exist. */
    public Uni<List<RedriveTask>> list(String project, QueueName queue) {
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> store.list(placed, config.maxTasksPerProject()));
    }

    /** The queue's task named {@code id}; 404 when it has none such (another project's, a malformed id). */
    public Uni<RedriveTask> get(String project, QueueName queue, String id) {
        UUID taskId = Uuids.parseCanonical(id).orElseThrow(() -> taskNotFound(project, queue, id));
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> store.get(placed, taskId))
                .map(found -> found.orElseThrow(() -> taskNotFound(project, queue, id)));
    }

    /** Cancels the queue's task {@code id} if it runs (an ended task stays as it is); 404 when it has none such. */
    public Uni<Void> cancel(String project, QueueName queue, String id) {
        UUID taskId = Uuids.parseCanonical(id).orElseThrow(() -> taskNotFound(project, queue, id));
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> store.cancel(placed, taskId))
                .map(found -> {
                    if (!found) {
                        throw taskNotFound(project, queue, id);
                    }
                    return null;
                });
    }

    private static Rejection taskNotFound(String project, QueueName queue, String id) {
        return Rejection.notFound(
                "Redrive task " + id + " does not exist for queue " + queue + " of project " + project);
    }
}
