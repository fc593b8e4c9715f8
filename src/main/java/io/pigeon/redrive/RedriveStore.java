package io.pigeon.redrive;

import io.pigeon.dispatch.NotificationFanOut;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.waiting.QueueReady;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The SQL of redrive tasks (migration V21). A task lives in the database of the queue it moves messages out of; every
 * statement names that queue by project and stored name, or the task by its id and the lease it was taken with.
 */
@ApplicationScoped
public class RedriveStore {

    /** What a task answers, in {@link #task}'s order. */
    private static final String COLUMNS =
            "id, queue, target, rate, state, moved, skipped, started_at, finished_at, reason";

    // Serialises the starts of one project's tasks on this database (held until the transaction ends), so that the next
    // statement counts what every start before it committed: the project's bound holds exactly, however many start at
    // once on however many replicas. A hash of the project: two projects that share a key only wait for each other.
    private static final String LOCK_PROJECT =
            "SELECT pg_advisory_xact_lock(hashtextextended('pigeon.redrive-tasks:' || $1, 0))";

    // Starts a task on queue $2 of project $1 (run after LOCK_PROJECT, in its transaction): refused when the queue does
    // not exist, when the named target $3 does not (on this database), when the queue has a running task (the unique
    // index on queue_id makes that hold however the statement races), or when the project runs $8 tasks here. Else the
    // project's oldest ended tasks make room (it holds at most $8), and the task is stored: its bound is the queue's
    // newest message now, leased to this replica ($6, for $7 ms) or to none ($6 null: any replica takes it).
    private static final String START =
            """
            WITH dlq AS (SELECT id FROM queues WHERE project = $1 AND name = $2),
            target AS (SELECT id FROM queues WHERE project = $1 AND name = $3::text),
            running AS (SELECT t.id FROM redrive_tasks t JOIN dlq d ON t.queue_id = d.id WHERE t.state = 'running'),
            held AS (
                SELECT count(*) AS tasks, count(*) FILTER (WHERE state = 'running') AS running
                FROM redrive_tasks WHERE project = $1),
            allowed AS (
                SELECT d.id AS queue_id FROM dlq d
                WHERE NOT EXISTS (SELECT 1 FROM running)
                  AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM target))
                  AND (SELECT running FROM held) < $8),
            recycled AS (
                DELETE FROM redrive_tasks
                WHERE id = ANY(ARRAY(
                    SELECT id FROM redrive_tasks
                    WHERE project = $1 AND state <> 'running' AND EXISTS (SELECT 1 FROM allowed)
                    ORDER BY finished_at, id
                    LIMIT GREATEST(0, (SELECT tasks FROM held) - $8 + 1)))
                RETURNING id),
            inserted AS (
                INSERT INTO redrive_tasks (id, project, queue, queue_id, target, rate, upto_id, lease_token, lease_until)
                SELECT $4, $1, $2, a.queue_id, $3, $5,
                       COALESCE((SELECT max(m.id) FROM messages m WHERE m.queue_id = a.queue_id), 0),
                       $6::uuid, CASE WHEN $6::uuid IS NOT NULL THEN now() + $7 * interval '1 millisecond' END
                FROM allowed a
                RETURNING %s)
            SELECT EXISTS (SELECT 1 FROM dlq) AS queue_found,
                   ($3::text IS NULL OR EXISTS (SELECT 1 FROM target)) AS target_found,
                   (SELECT id FROM running LIMIT 1) AS running_id,
                   (SELECT count(*) FROM recycled) AS recycled,
                   i.*
            FROM (SELECT 1) AS one LEFT JOIN inserted i ON true"""
                    .formatted(COLUMNS);

    private static final String LIST =
            """
            SELECT %s FROM redrive_tasks
            WHERE project = $1 AND queue = $2
            ORDER BY started_at DESC, id
            LIMIT $3"""
                    .formatted(COLUMNS);

    private static final String GET =
            "SELECT %s FROM redrive_tasks WHERE project = $1 AND queue = $2 AND id = $3".formatted(COLUMNS);

    // A running task ends at once: its replica's next batch finds it no longer running (a batch under way holds the
    // task's row, so this waits for it to commit: what it moved stays moved). A task that ended already stays as it is.
    private static final String CANCEL =
            """
            WITH cancelled AS (
                UPDATE redrive_tasks
                SET state = 'cancelled', finished_at = now(), lease_token = NULL, lease_until = NULL
                WHERE project = $1 AND queue = $2 AND id = $3 AND state = 'running'
                RETURNING id)
            SELECT EXISTS (SELECT 1 FROM cancelled)
                   OR EXISTS (SELECT 1 FROM redrive_tasks WHERE project = $1 AND queue = $2 AND id = $3) AS found""";

    // Running tasks no replica holds (their lease lapsed: the replica died, stopped or lost the database; or they were
    // started without one), oldest first, leased to this replica for $2 ms, as the dispatcher leases due groups. A
    // project gets at most $5 places here, less what this replica already runs of it ($3 projects, $4 tasks each), so
    // that one project's many tasks cannot take every place while another's wait. The window cannot be locked, so the
    // chosen rows are locked by a second SELECT that checks again that no replica took them meanwhile.
    private static final String TAKE =
            """
            UPDATE redrive_tasks
            SET lease_token = gen_random_uuid(), lease_until = now() + $2 * interval '1 millisecond'
            WHERE id = ANY(ARRAY(
                SELECT id FROM redrive_tasks
                WHERE id = ANY(ARRAY(
                    SELECT c.id FROM (
                        SELECT id, project, started_at,
                               row_number() OVER (PARTITION BY project ORDER BY started_at) AS place
                        FROM redrive_tasks
                        WHERE state = 'running' AND (lease_until IS NULL OR lease_until <= now())) c
                    LEFT JOIN unnest($3::text[], $4::int[]) AS h (project, held) ON h.project = c.project
                    WHERE c.place + COALESCE(h.held, 0) <= $5
                    ORDER BY c.started_at
                    LIMIT $1))
                  AND state = 'running' AND (lease_until IS NULL OR lease_until <= now())
                ORDER BY started_at
                FOR UPDATE SKIP LOCKED))
            RETURNING id, project, lease_token, rate, last_id""";

    // A stopping replica gives its tasks back (any replica takes them at its next look); a batch of it that runs after
    // this finds no lease, and moves nothing.
    private static final String GIVE_BACK =
            """
            UPDATE redrive_tasks t SET lease_token = NULL, lease_until = NULL
            FROM unnest($1::uuid[], $2::uuid[]) AS r (id, lease_token)
            WHERE t.id = r.id AND t.lease_token = r.lease_token AND t.state = 'running'""";

    /** The CTE of {@link #BATCH} that tells the replicas waiting for the targets' messages (see QueueReady). */
    private static final String WAITERS_TOLD = "waiters_told";

    /*
     * One batch of a task, in one statement (one transaction), by the replica holding its lease ($1 the task, $2 the
     * lease, $3 its progress as that replica knows it; anything else, and nothing happens): the next $4 messages of the
     * queue after $3 and up to the task's bound (not expired; locked, waiting for a claim or delete that holds one),
     * each moved to the task's target, or to the queue it was dead-lettered from, of the same project on this database,
     * unless that is the queue itself, does not exist here, is over its message quota (found by the usage check), or
     * the message is held by a live claim: then it is skipped, and stays. A moved message keeps its id, body, ttl,
     * expiry, age and delay; its claim count is reset and its claim cleared. A sealed one waits invisible until the
     * sweeper has sealed it for its new queue (as after a dead-letter move). The task records its progress, is done
     * when nothing is left to consider, failed when its queue is gone, and otherwise keeps its lease for $5 ms more.
     * Waiting claims and pops of the targets, and their sockets, are told of the messages that are claimable at once.
     * No row back: the task is no longer this replica's to run (cancelled, taken over, or progress not as known).
     */
    static final String BATCH =
            """
            WITH task AS (
                SELECT t.id, t.project, t.queue_id, t.target, t.upto_id
                FROM redrive_tasks t
                WHERE t.id = $1 AND t.lease_token = $2 AND t.state = 'running' AND t.last_id = $3
                FOR UPDATE),
            dlq AS (
                SELECT q.id FROM task t JOIN queues q ON q.id = t.queue_id AND q.project = t.project),
            candidates AS MATERIALIZED (
                SELECT c.* FROM task t
                CROSS JOIN LATERAL (
                    SELECT m.id, m.dead_letter_source AS source, m.key_id,
                           m.claim_id IS NOT NULL AND m.claim_expires_at > now() AS claimed
                    FROM messages m
                    WHERE m.queue_id = t.queue_id AND m.id > $3 AND m.id <= t.upto_id AND m.expires_at > now()
                    ORDER BY m.id
                    LIMIT $4
                    FOR UPDATE OF m) c
                WHERE EXISTS (SELECT 1 FROM dlq)),
            destinations AS (
                SELECT DISTINCT COALESCE(t.target, c.source) AS name
                FROM candidates c CROSS JOIN task t
                WHERE NOT c.claimed AND COALESCE(t.target, c.source) IS NOT NULL),
            targets AS MATERIALIZED (
                SELECT q.id, q.project COLLATE "default" AS project, q.name COLLATE "default" AS name, q.wake_until
                FROM task t CROSS JOIN destinations d
                CROSS JOIN LATERAL (SELECT id, project, name, wake_until FROM queues
                                    WHERE project = t.project AND name = d.name LIMIT 1) q
                WHERE q.id <> t.queue_id
                  AND NOT EXISTS (SELECT 1 FROM quota_breaches b
                                  WHERE b.project = t.project AND b.kind = 'messages' AND b.queue_id = q.id)),
            decided AS MATERIALIZED (
                SELECT c.id, q.id AS target_id
                FROM candidates c CROSS JOIN task t
                LEFT JOIN targets q ON NOT c.claimed AND q.name = COALESCE(t.target, c.source)),
            moved AS (
                UPDATE messages m
                SET queue_id = d.target_id, claim_id = NULL, claim_expires_at = NULL, claim_count = 0, first_claimed_at = NULL,
                    dead_letter_source = NULL,
                    visible_at = CASE WHEN m.key_id IS NOT NULL THEN 'infinity'::timestamptz ELSE m.visible_at END
                FROM decided d, task t
                WHERE m.queue_id = t.queue_id AND m.id = d.id AND d.target_id IS NOT NULL
                RETURNING m.id, m.queue_id, m.key_id, m.visible_at),
            inserted AS (
                SELECT id, queue_id FROM moved WHERE key_id IS NULL AND (visible_at IS NULL OR visible_at <= now())),
            arrived AS (
                SELECT queue_id, count(*) AS messages FROM inserted GROUP BY queue_id),
            %s,
            %s,
            progress AS (
                UPDATE redrive_tasks r
                SET last_id = COALESCE((SELECT max(id) FROM candidates), r.last_id),
                    moved = r.moved + (SELECT count(*) FROM moved),
                    skipped = r.skipped + (SELECT count(*) FROM decided WHERE target_id IS NULL),
                    state = s.state,
                    reason = CASE WHEN s.state = 'failed' THEN 'the queue was deleted' END,
                    finished_at = CASE WHEN s.state <> 'running' THEN now() END,
                    lease_token = CASE WHEN s.state = 'running' THEN r.lease_token END,
                    lease_until = CASE WHEN s.state = 'running' THEN now() + $5 * interval '1 millisecond' END
                FROM task t
                CROSS JOIN LATERAL (
                    SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM dlq) THEN 'failed'
                                WHEN NOT EXISTS (SELECT 1 FROM candidates) THEN 'done'
                                ELSE 'running' END AS state) s
                WHERE r.id = t.id
                RETURNING r.state, r.last_id)
            SELECT p.state, p.last_id, (SELECT count(*) FROM moved) AS moved_now, %s AS sockets_told,
                   %s AS waiters_told
            FROM progress p"""
                    .formatted(
                            QueueReady.cte(
                                    WAITERS_TOLD,
                                    "targets w JOIN arrived a ON a.queue_id = w.id",
                                    "true",
                                    "w.project",
                                    "w.name",
                                    "a.messages",
                                    "w.wake_until"),
                            NotificationFanOut.socketsToldAcrossQueues("targets"),
                            NotificationFanOut.SOCKETS_TOLD,
                            QueueReady.told(WAITERS_TOLD));

    /** What a start found: the task stored, or why not. */
    public record Started(
            boolean queueFound, boolean targetFound, UUID runningId, long recycled, Optional<RedriveTask> task) {}

    /** A task leased to this replica: the lease to show, its rate, and its progress. */
    public record Leased(UUID id, String project, UUID leaseToken, int rate, long lastId) {}

    /** What one batch did: the task's state after it, its progress, and how many messages it moved. */
    public record Batch(RedriveTask.State state, long lastId, long moved) {}

    /**
     * Starts a task on {@code queue}, whose handle must be on a transaction's connection (the project's lock is held
     * until it ends): moving to {@code target} (null: each message's source) at {@code rate}, leased to this replica
     * when {@code leaseToken} is given.
     */
    public Uni<Started> start(
            PlacedQueue queue,
            String target,
            UUID id,
            int rate,
            UUID leaseToken,
            long leaseMillis,
            int maxTasksPerProject) {
        SqlClient transaction = queue.db();
        return transaction
                .preparedQuery(LOCK_PROJECT)
                .execute(Tuple.of(queue.project()))
                .chain(locked -> transaction
                        .preparedQuery(START)
                        .execute(Tuple.from(Arrays.asList(
                                queue.project(),
                                queue.storedName(),
                                target,
                                id,
                                rate,
                                leaseToken,
                                leaseMillis,
                                maxTasksPerProject))))
                .map(rows -> {
                    Row row = rows.iterator().next();
                    return new Started(
                            row.getBoolean("queue_found"),
                            row.getBoolean("target_found"),
                            row.getUUID("running_id"),
                            row.getLong("recycled"),
                            row.getUUID("id") == null ? Optional.empty() : Optional.of(task(row)));
                });
    }

    /** The queue's tasks, newest first, at most {@code limit}. */
    public Uni<List<RedriveTask>> list(PlacedQueue queue, int limit) {
        return queue.db()
                .preparedQuery(LIST)
                .execute(Tuple.of(queue.project(), queue.storedName(), limit))
                .map(rows -> {
                    List<RedriveTask> tasks = new ArrayList<>(rows.size());
                    rows.forEach(row -> tasks.add(task(row)));
                    return tasks;
                });
    }

    /** The queue's task {@code id}; empty when the queue has no such task. */
    public Uni<Optional<RedriveTask>> get(PlacedQueue queue, UUID id) {
        return queue.db()
                .preparedQuery(GET)
                .execute(Tuple.of(queue.project(), queue.storedName(), id))
                .map(rows -> rows.size() == 0
                        ? Optional.empty()
                        : Optional.of(task(rows.iterator().next())));
    }

    /** Cancels the queue's task {@code id} if it runs; false when the queue has no such task. */
    public Uni<Boolean> cancel(PlacedQueue queue, UUID id) {
        return queue.db()
                .preparedQuery(CANCEL)
                .execute(Tuple.of(queue.project(), queue.storedName(), id))
                .map(rows -> rows.iterator().next().getBoolean("found"));
    }

    /**
     * Leases up to {@code count} running tasks of {@code db} that no replica holds, for {@code leaseMillis}: of each
     * project at most {@code perProject}, less what {@code held} says this replica runs of it already.
     */
    public Uni<List<Leased>> take(
            SqlClient db, int count, long leaseMillis, Map<String, Integer> held, int perProject) {
        List<String> projects = new ArrayList<>(held.keySet());
        Integer[] tasks = projects.stream().map(held::get).toArray(Integer[]::new);
        return db.preparedQuery(TAKE)
                .execute(Tuple.of(count, leaseMillis)
                        .addArrayOfString(projects.toArray(String[]::new))
                        .addArrayOfInteger(tasks)
                        .addInteger(perProject))
                .map(rows -> {
                    List<Leased> taken = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        taken.add(new Leased(
                                row.getUUID("id"),
                                row.getString("project"),
                                row.getUUID("lease_token"),
                                row.getInteger("rate"),
                                row.getLong("last_id")));
                    }
                    return taken;
                });
    }

    /** Gives back the leases of the tasks (of {@code db}) that this replica stops running. */
    public Uni<Void> giveBack(SqlClient db, List<Leased> tasks) {
        return db.preparedQuery(GIVE_BACK)
                .execute(Tuple.tuple()
                        .addArrayOfUUID(tasks.stream().map(Leased::id).toArray(UUID[]::new))
                        .addArrayOfUUID(tasks.stream().map(Leased::leaseToken).toArray(UUID[]::new)))
                .replaceWithVoid();
    }

    /**
     * One batch of the task: up to {@code limit} messages after {@code lastId}; empty when the task is no longer this
     * lease's to run (cancelled, taken over by another replica, or its progress is not {@code lastId}).
     */
    public Uni<Optional<Batch>> batch(SqlClient db, Leased task, long lastId, int limit, long leaseMillis) {
        return db.preparedQuery(BATCH)
                .execute(Tuple.of(task.id(), task.leaseToken(), lastId, limit, leaseMillis))
                .map(rows -> {
                    if (rows.size() == 0) {
                        return Optional.empty();
                    }
                    Row row = rows.iterator().next();
                    return Optional.of(new Batch(
                            RedriveTask.State.of(row.getString("state")),
                            row.getLong("last_id"),
                            row.getLong("moved_now")));
                });
    }

    private static RedriveTask task(Row row) {
        return new RedriveTask(
                row.getUUID("id"),
                row.getString("queue"),
                row.getString("target"),
                row.getInteger("rate"),
                RedriveTask.State.of(row.getString("state")),
                row.getLong("moved"),
                row.getLong("skipped"),
                row.getOffsetDateTime("started_at"),
                row.getOffsetDateTime("finished_at"),
                row.getString("reason"));
    }
}
