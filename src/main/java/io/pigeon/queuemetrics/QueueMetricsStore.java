package io.pigeon.queuemetrics;

import io.pigeon.message.FreeMessages;
import io.pigeon.message.MessageStore;
import io.pigeon.queue.Ordering;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.ReservedAttributes;
import io.pigeon.storage.OneReplicaAtATime;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL of per-queue metrics (migration V20): the sample of every queue of a database, the flush of a replica's
 * counts into the queues' totals, and the read of both that /q/metrics/queues serves.
 */
@ApplicationScoped
public class QueueMetricsStore {

    // One replica at a time ($1, the lock's key), and only once the last sample is $2 ms old, so that replicas ticking
    // at different moments sample about once per period between them. Each queue's live messages are read through its
    // primary key, oldest first, at most $3 + 1 of them: each is claimed (a live claim holds it), delayed (not visible
    // yet), waiting for the sweeper to move it to the dead-letter queue (claimed as often as its queue's rule allows,
    // and so not claimable: in no count), or ready (what a claim would take: FreeMessages). Past $3 the counts are
    // scaled by how far the queue's ids reach beyond the head (as stats estimate a deep queue), and so marked. On a
    // fifo
    // queue only (%6$s), the groups a live claim holds a message of are counted over its live claimed grouped rows, at
    // most $3 + 1 of them (V31's messages_group_claimed holds grouped claimed rows only): a queue of another ordering
    // reads none, and past $3 rows the count is of the groups those rows hold. A row is rewritten only when it
    // changed, and the samples and totals of queues deleted since are dropped.
    static final String SAMPLE =
            """
            WITH %1$s,
            run AS (
                UPDATE queue_sample_runs SET sampled_at = now()
                WHERE %2$s AND sampled_at <= now() - $2 * interval '1 millisecond'
                RETURNING sampled_at),
            counted AS MATERIALIZED (
                SELECT q.id AS queue_id, h.total > $3 AS estimated,
                       CASE WHEN h.total > $3
                            THEN ((SELECT max(m.id) FROM messages m WHERE m.queue_id = q.id) - h.first_id + 1)::float8
                                 / (h.last_id - h.first_id + 1)
                            ELSE 1 END AS scale,
                       h.ready, h.claimed, h.delayed, h.oldest_ready_at,
                       CASE WHEN %6$s THEN b.blocked_groups END AS blocked_groups
                FROM queues q
                CROSS JOIN LATERAL (SELECT %3$s AS max_claims) r
                CROSS JOIN LATERAL (
                    SELECT count(*) FILTER (WHERE s.state = 'ready') AS ready,
                           count(*) FILTER (WHERE s.state = 'claimed') AS claimed,
                           count(*) FILTER (WHERE s.state = 'delayed') AS delayed,
                           min(s.created_at) FILTER (WHERE s.state = 'ready') AS oldest_ready_at,
                           count(*) AS total, min(s.id) AS first_id, max(s.id) AS last_id
                    FROM (SELECT m.id, m.created_at,
                                 CASE WHEN %5$s THEN 'claimed'
                                      WHEN NOT %4$s THEN 'delayed'
                                      WHEN m.claim_count >= r.max_claims THEN 'dead-lettering'
                                      ELSE 'ready' END AS state
                          FROM messages m
                          WHERE m.queue_id = q.id AND m.expires_at > now()
                          ORDER BY m.id LIMIT $3 + 1) s) h
                CROSS JOIN LATERAL (
                    SELECT count(DISTINCT c.message_group) AS blocked_groups
                    FROM (SELECT m.message_group FROM messages m
                          WHERE %6$s AND m.queue_id = q.id AND m.message_group IS NOT NULL AND m.claim_id IS NOT NULL
                            AND m.claim_expires_at > now() AND m.expires_at > now()
                          LIMIT $3 + 1) c) b
                WHERE EXISTS (SELECT 1 FROM run)),
            stored AS (
                INSERT INTO queue_samples AS s (queue_id, ready, claimed, delayed, oldest_ready_at, estimated,
                                                blocked_groups)
                SELECT queue_id, round(ready * scale), round(claimed * scale), round(delayed * scale), oldest_ready_at,
                       estimated, blocked_groups
                FROM counted ORDER BY queue_id
                ON CONFLICT (queue_id) DO UPDATE
                SET ready = EXCLUDED.ready, claimed = EXCLUDED.claimed, delayed = EXCLUDED.delayed,
                    oldest_ready_at = EXCLUDED.oldest_ready_at, estimated = EXCLUDED.estimated,
                    blocked_groups = EXCLUDED.blocked_groups
                WHERE (s.ready, s.claimed, s.delayed, s.oldest_ready_at, s.estimated, s.blocked_groups)
                      IS DISTINCT FROM (EXCLUDED.ready, EXCLUDED.claimed, EXCLUDED.delayed, EXCLUDED.oldest_ready_at,
                                        EXCLUDED.estimated, EXCLUDED.blocked_groups)
                RETURNING 1),
            samples_gone AS (
                DELETE FROM queue_samples s
                WHERE EXISTS (SELECT 1 FROM run) AND NOT EXISTS (SELECT 1 FROM queues q WHERE q.id = s.queue_id)),
            totals_gone AS (
                DELETE FROM queue_counters c
                WHERE EXISTS (SELECT 1 FROM run) AND NOT EXISTS (SELECT 1 FROM queues q WHERE q.id = c.queue_id))
            SELECT %2$s AS held, EXISTS (SELECT 1 FROM run) AS sampled, (SELECT count(*) FROM counted) AS queues,
                   (SELECT count(*) FROM stored) AS changed"""
                    .formatted(
                            OneReplicaAtATime.lock("$1"),
                            OneReplicaAtATime.HELD,
                            FreeMessages.MAX_CLAIMS_OF_METADATA.replace("metadata", "q.metadata"),
                            FreeMessages.VISIBLE,
                            MessageStore.CLAIMED,
                            "q.metadata ->> '" + ReservedAttributes.ORDERING + "' = '" + Ordering.FIFO.value() + "'");

    // Adds one replica's counts to the queues' totals. $1..$6: counts by queue (project, stored name), matched to this
    // database's queues (a queue lives on one database; counts of a queue deleted since are dropped); $7..$10: each
    // subscription's notification calls, of the subscriptions of this database, counted for the subscription's queue.
    // Rows are locked in queue order, as the sweeper's dead-letter count locks them, so that two never deadlock. The
    // answer: the ordinals of the queue counts this database took.
    static final String FLUSH =
            """
            WITH by_queue AS MATERIALIZED (
                SELECT d.n, q.id AS queue_id, d.posted, d.claimed, d.deleted, d.empty_claims
                FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[])
                     WITH ORDINALITY AS d (project, name, posted, claimed, deleted, empty_claims, n)
                JOIN queues q ON q.project = d.project AND q.name = d.name),
            by_subscription AS (
                SELECT q.id AS queue_id, n.delivered, n.failed
                FROM unnest($7::text[], $8::bigint[], $9::bigint[], $10::bigint[])
                     AS n (project, subscription, delivered, failed)
                JOIN subscriptions s ON s.id = n.subscription AND s.project = n.project
                JOIN queues q ON q.project = s.project AND q.name = s.source),
            added AS (
                INSERT INTO queue_counters AS c (queue_id, posted, claimed, deleted, empty_claims,
                                                 notifications_delivered, notifications_failed)
                SELECT a.queue_id, sum(a.posted), sum(a.claimed), sum(a.deleted), sum(a.empty_claims), sum(a.delivered),
                       sum(a.failed)
                FROM (SELECT queue_id, posted, claimed, deleted, empty_claims, 0 AS delivered, 0 AS failed FROM by_queue
                      UNION ALL
                      SELECT queue_id, 0, 0, 0, 0, delivered, failed FROM by_subscription) a
                GROUP BY a.queue_id ORDER BY a.queue_id
                ON CONFLICT (queue_id) DO UPDATE
                SET posted = c.posted + EXCLUDED.posted, claimed = c.claimed + EXCLUDED.claimed,
                    deleted = c.deleted + EXCLUDED.deleted, empty_claims = c.empty_claims + EXCLUDED.empty_claims,
                    notifications_delivered = c.notifications_delivered + EXCLUDED.notifications_delivered,
                    notifications_failed = c.notifications_failed + EXCLUDED.notifications_failed)
            SELECT n FROM by_queue""";

    private static final String READ =
            """
            SELECT q.project, q.name, s.ready, s.claimed, s.delayed, s.estimated, s.blocked_groups,
                   extract(epoch FROM r.sampled_at - s.oldest_ready_at)::float8 AS oldest_ready_age,
                   c.posted, c.claimed AS claimed_total, c.deleted, c.empty_claims, c.dead_lettered,
                   c.notifications_delivered, c.notifications_failed
            FROM queues q
            CROSS JOIN queue_sample_runs r
            LEFT JOIN queue_samples s ON s.queue_id = q.id
            LEFT JOIN queue_counters c ON c.queue_id = q.id
            WHERE %s AND (cardinality($2::text[]) = 0 OR q.name = ANY($2::text[]))
            ORDER BY q.project, q.name
            LIMIT $3""";

    // Two texts, so that each has its own plan: every project (an ordered scan of the queues' unique index up to the
    // limit), or the named ones.
    static final String READ_EVERY_PROJECT = READ.formatted("cardinality($1::text[]) = 0");
    static final String READ_PROJECTS = READ.formatted("q.project = ANY($1::text[])");

    // One page of a project's queues for the console, each with its last sample and, when other queues of the project
    // name it as their dead-letter queue, those sources. $1 project, $2 the first stored name past the queues (topics
    // are left out), $3 a part of the name (empty: any), $4 the page size, $5 how many to skip, $6 the sort (below).
    // The sources are read once per page: the project's queues whose metadata names a dead-letter queue, found through
    // the (project, name) index and a text test before the JSON is read. Each row names its first SOURCES_NAMED sources
    // and counts them all: a project's thousands of queues sharing one dead-letter queue made one row as long as all
    // their names (685 KB for a page of 50).
    private static final String OVERVIEW =
            """
            WITH sources AS MATERIALIZED (
                SELECT d.dead_letter_queue,
                       array_to_string((array_agg(d.name ORDER BY d.name))[1:%2$s], ', ') AS names, count(*) AS how_many
                FROM (SELECT name, metadata ->> '_dead_letter_queue' AS dead_letter_queue
                      FROM queues
                      WHERE project = $1 AND name < $2 AND metadata::text LIKE '%%_dead_letter_queue%%') d
                WHERE d.dead_letter_queue IS NOT NULL
                GROUP BY d.dead_letter_queue)
            SELECT q.name, s.ready, s.claimed, s.delayed, coalesce(s.estimated, false) AS estimated,
                   extract(epoch FROM r.sampled_at - s.oldest_ready_at)::float8 AS oldest_ready_age,
                   src.names AS dead_letter_sources, src.how_many AS dead_letter_source_count,
                   q.metadata ->> '_dead_letter_queue' AS dead_letter_queue
            FROM queues q
            CROSS JOIN queue_sample_runs r
            LEFT JOIN queue_samples s ON s.queue_id = q.id
            LEFT JOIN sources src ON src.dead_letter_queue = q.name
            WHERE q.project = $1 AND q.name < $2 AND ($3 = '' OR strpos(q.name, $3) > 0)
            ORDER BY %1$s
            LIMIT $4 OFFSET $5""";

    /** How many of a dead-letter queue's sources a row of the console's table names (all are counted). */
    public static final int SOURCES_NAMED = 5;

    // In name order, the (project, name) index gives the page without sorting the project's queues (no $6).
    static final String OVERVIEW_BY_NAME = OVERVIEW.formatted("q.name", SOURCES_NAMED);

    // By a count, largest first (a queue never sampled last), then by name: the project's queues are sorted whole,
    // which
    // for 10,000 queues is one in-memory sort of narrow rows.
    static final String OVERVIEW_BY_COUNT = OVERVIEW.formatted(
            """
            CASE $6::text WHEN 'ready' THEN s.ready WHEN 'claimed' THEN s.claimed WHEN 'delayed' THEN s.delayed
                          WHEN 'age' THEN extract(epoch FROM r.sampled_at - s.oldest_ready_at)::bigint END
                     DESC NULLS LAST, q.name""",
            SOURCES_NAMED);

    /** What a page of the console's queue table asks for: the statement's parameters, in their order. */
    public record OverviewQuery(String project, String nameContains, int limit, int offset, String sort) {
        Tuple parameters() {
            return byName()
                    ? Tuple.from(List.of(project, QueueName.TOPIC_PREFIX, nameContains, limit, offset))
                    : Tuple.from(List.of(project, QueueName.TOPIC_PREFIX, nameContains, limit, offset, sort));
        }

        boolean byName() {
            return "name".equals(sort);
        }
    }

    /** One page of a project's queues on {@code db}, as the query asks. */
    public Uni<List<ListedQueue>> overview(SqlClient db, OverviewQuery query) {
        return db.preparedQuery(query.byName() ? OVERVIEW_BY_NAME : OVERVIEW_BY_COUNT)
                .execute(query.parameters())
                .map(rows -> {
                    List<ListedQueue> page = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        Long sources = row.getLong("dead_letter_source_count");
                        page.add(new ListedQueue(
                                row.getString("name"),
                                row.getLong("ready"),
                                row.getLong("claimed"),
                                row.getLong("delayed"),
                                row.getBoolean("estimated"),
                                age(row.getDouble("oldest_ready_age")),
                                row.getString("dead_letter_queue"),
                                row.getString("dead_letter_sources"),
                                sources == null ? 0 : sources));
                    }
                    return page;
                });
    }

    // The flow history (V22), written after a sample by the replica that took it: each queue's totals for the current
    // minute, for the queues whose totals differ from their last point (one probe of the primary key per queue with
    // totals). Points past $1 minutes are dropped through the minute index, but for each queue's last one, the base of
    // its next rate, until the queue is gone.
    // A queue's first point has the base 0: its totals started at 0 when it was made.
    static final String RECORD_HISTORY =
            """
            WITH written AS (
                INSERT INTO queue_counter_history AS h (queue_id, minute, posted, deleted)
                SELECT c.queue_id, date_trunc('minute', now()), c.posted, c.deleted
                FROM queue_counters c
                LEFT JOIN LATERAL (
                    SELECT l.posted, l.deleted FROM queue_counter_history l
                    WHERE l.queue_id = c.queue_id
                    ORDER BY l.minute DESC
                    LIMIT 1) last ON true
                WHERE last.posted IS NULL OR (last.posted, last.deleted) <> (c.posted, c.deleted)
                ORDER BY c.queue_id
                ON CONFLICT (queue_id, minute) DO UPDATE SET posted = EXCLUDED.posted, deleted = EXCLUDED.deleted
                RETURNING 1),
            dropped AS (
                DELETE FROM queue_counter_history h
                WHERE h.minute < now() - $1 * interval '1 minute'
                  AND (EXISTS (SELECT 1 FROM queue_counter_history n WHERE n.queue_id = h.queue_id AND n.minute > h.minute)
                       OR NOT EXISTS (SELECT 1 FROM queues q WHERE q.id = h.queue_id))
                RETURNING 1)
            SELECT (SELECT count(*) FROM written) AS written, (SELECT count(*) FROM dropped) AS dropped""";

    // One queue's points of the last $3 minutes, newest first, and the one before them (the base of the first rate).
    // The database's current minute comes back even when the queue has no point (one row, its point columns null), so
    // that an empty chart still spans the last hour.
    static final String HISTORY =
            """
            SELECT extract(epoch FROM p.minute)::float8 AS minute, p.posted, p.deleted,
                   extract(epoch FROM date_trunc('minute', now()))::float8 AS this_minute
            FROM (SELECT 1) one
            LEFT JOIN LATERAL (
                SELECT h.minute, h.posted, h.deleted
                FROM queues q
                JOIN queue_counter_history h ON h.queue_id = q.id
                WHERE q.project = $1 AND q.name = $2
                ORDER BY h.minute DESC
                LIMIT $3 + 2) p ON true
            ORDER BY p.minute DESC""";

    // The points of a page of a project's queues (names $2, at most a console page), each queue's last $3 + 2 as
    // HISTORY
    // reads one queue's: one statement for the whole page, a probe of the history's primary key per queue.
    static final String PAGE_HISTORIES =
            """
            SELECT q.name, extract(epoch FROM h.minute)::float8 AS minute, h.posted, h.deleted,
                   extract(epoch FROM date_trunc('minute', now()))::float8 AS this_minute
            FROM queues q
            CROSS JOIN LATERAL (
                SELECT l.minute, l.posted, l.deleted FROM queue_counter_history l
                WHERE l.queue_id = q.id
                ORDER BY l.minute DESC
                LIMIT $3 + 2) h
            WHERE q.project = $1 AND q.name = ANY($2::text[])
            ORDER BY q.name, h.minute DESC""";

    /** Minutes of flow the history keeps and the console charts. */
    public static final int HISTORY_MINUTES = 60;

    /** Records the flow history of {@code db}'s queues; how many points it wrote. */
    public Uni<Long> recordHistory(SqlClient db) {
        return db.preparedQuery(RECORD_HISTORY)
                .execute(Tuple.of(HISTORY_MINUTES + 2))
                .map(rows -> rows.iterator().next().getLong("written"));
    }

    /** A queue's totals at the end of a minute (unix seconds) in which they changed. */
    public record Point(double minute, long posted, long deleted) {}

    /** The queue's points, newest first, and the current minute (unix seconds) as the database sees it. */
    public record History(List<Point> points, double thisMinute) {}

    /** The queue's last points, newest first; empty when it has none (or does not exist). */
    public Uni<History> history(PlacedQueue queue) {
        return queue.db()
                .preparedQuery(HISTORY)
                .execute(Tuple.of(queue.project(), queue.storedName(), HISTORY_MINUTES))
                .map(rows -> {
                    List<Point> points = new ArrayList<>(rows.size());
                    double thisMinute = 0;
                    for (Row row : rows) {
                        if (row.getValue("minute") != null) {
                            points.add(
                                    new Point(row.getDouble("minute"), row.getLong("posted"), row.getLong("deleted")));
                        }
                        thisMinute = row.getDouble("this_minute");
                    }
                    return new History(points, thisMinute);
                });
    }

    /** The points of the named queues of {@code project} on {@code db}, by name; a queue without points is absent. */
    public Uni<Map<String, History>> histories(SqlClient db, String project, List<String> names) {
        return db.preparedQuery(PAGE_HISTORIES)
                .execute(Tuple.of(project, names.toArray(String[]::new), HISTORY_MINUTES))
                .map(rows -> {
                    Map<String, List<Point>> points = new HashMap<>();
                    double thisMinute = 0;
                    for (Row row : rows) {
                        points.computeIfAbsent(row.getString("name"), name -> new ArrayList<>())
                                .add(new Point(row.getDouble("minute"), row.getLong("posted"), row.getLong("deleted")));
                        thisMinute = row.getDouble("this_minute");
                    }
                    Map<String, History> histories = new HashMap<>();
                    for (Map.Entry<String, List<Point>> queue : points.entrySet()) {
                        histories.put(queue.getKey(), new History(queue.getValue(), thisMinute));
                    }
                    return histories;
                });
    }

    /** What one sample statement did on one database. */
    public record Sampled(boolean held, boolean sampled, long queues, long changed) {}

    /**
     * Samples every queue of {@code db} if this replica holds the lock and the last sample is {@code dueAfterMillis}
     * old, counting at most {@code exactCountLimit} live messages of a queue exactly.
     */
    public Uni<Sampled> sample(SqlClient db, long dueAfterMillis, int exactCountLimit) {
        return db.preparedQuery(SAMPLE)
                .execute(Tuple.of(OneReplicaAtATime.QUEUE_SAMPLE.key(), dueAfterMillis, exactCountLimit))
                .map(rows -> {
                    Row row = rows.iterator().next();
                    return new Sampled(
                            row.getBoolean("held"),
                            row.getBoolean("sampled"),
                            row.getLong("queues"),
                            row.getLong("changed"));
                });
    }

    /** One queue's counts since the last flush, as a flush sends them. */
    public record QueueDeltas(
            String project, String queue, long posted, long claimed, long deleted, long emptyClaims) {}

    /** One subscription's notification calls since the last flush. */
    public record CallDeltas(String project, long subscription, long delivered, long failed) {}

    /** Adds the counts to the totals of {@code db}'s queues; the indexes (from 0) of the queue counts it took. */
    public Uni<List<Integer>> flush(SqlClient db, List<QueueDeltas> queues, List<CallDeltas> calls) {
        Tuple parameters = Tuple.tuple()
                .addArrayOfString(queues.stream().map(QueueDeltas::project).toArray(String[]::new))
                .addArrayOfString(queues.stream().map(QueueDeltas::queue).toArray(String[]::new))
                .addArrayOfLong(queues.stream().map(QueueDeltas::posted).toArray(Long[]::new))
                .addArrayOfLong(queues.stream().map(QueueDeltas::claimed).toArray(Long[]::new))
                .addArrayOfLong(queues.stream().map(QueueDeltas::deleted).toArray(Long[]::new))
                .addArrayOfLong(queues.stream().map(QueueDeltas::emptyClaims).toArray(Long[]::new))
                .addArrayOfString(calls.stream().map(CallDeltas::project).toArray(String[]::new))
                .addArrayOfLong(calls.stream().map(CallDeltas::subscription).toArray(Long[]::new))
                .addArrayOfLong(calls.stream().map(CallDeltas::delivered).toArray(Long[]::new))
                .addArrayOfLong(calls.stream().map(CallDeltas::failed).toArray(Long[]::new));
        return db.preparedQuery(FLUSH).execute(parameters).map(rows -> {
            List<Integer> taken = new ArrayList<>(rows.size());
            for (Row row : rows) {
                taken.add((int) (row.getLong("n") - 1));
            }
            return taken;
        });
    }

    /**
     * One queue as /q/metrics/queues serves it, by the name it is stored under: its last sample (null counts when it was
     * never sampled; {@code blockedGroups} null unless it is a fifo queue) and its totals (0 until something was
     * counted).
     */
    public record QueueReading(
            String project,
            String storedName,
            Long ready,
            Long claimed,
            Long delayed,
            double oldestReadyAgeSeconds,
            boolean estimated,
            Long blockedGroups,
            long posted,
            long claimedTotal,
            long deleted,
            long emptyClaims,
            long deadLettered,
            long notificationsDelivered,
            long notificationsFailed) {

        public boolean sampled() {
            return ready != null;
        }

        /** Whether it is a topic (stored under {@link QueueName#TOPIC_PREFIX}). */
        public boolean topic() {
            return storedName.startsWith(QueueName.TOPIC_PREFIX);
        }

        /** The name a client knows it by: a queue's, or a topic's without its prefix. */
        public String name() {
            return topic() ? storedName.substring(QueueName.TOPIC_PREFIX.length()) : storedName;
        }
    }

    /**
     * The queues of {@code db}, in project and stored-name order, at most {@code limit}: of the projects named (every
     * project when none is), and of the stored names named (every one when none is).
     */
    public Uni<List<QueueReading>> read(SqlClient db, List<String> projects, List<String> names, int limit) {
        return db.preparedQuery(projects.isEmpty() ? READ_EVERY_PROJECT : READ_PROJECTS)
                .execute(Tuple.of(projects.toArray(String[]::new), names.toArray(String[]::new), limit))
                .map(rows -> {
                    List<QueueReading> read = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        Double age = row.getDouble("oldest_ready_age");
                        read.add(new QueueReading(
                                row.getString("project"),
                                row.getString("name"),
                                row.getLong("ready"),
                                row.getLong("claimed"),
                                row.getLong("delayed"),
                                age == null ? 0 : Math.max(0, age),
                                Boolean.TRUE.equals(row.getBoolean("estimated")),
                                row.getLong("blocked_groups"),
                                orZero(row.getLong("posted")),
                                orZero(row.getLong("claimed_total")),
                                orZero(row.getLong("deleted")),
                                orZero(row.getLong("empty_claims")),
                                orZero(row.getLong("dead_lettered")),
                                orZero(row.getLong("notifications_delivered")),
                                orZero(row.getLong("notifications_failed"))));
                    }
                    return read;
                });
    }

    private static Double age(Double seconds) {
        return seconds == null ? null : Math.max(0, seconds);
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }
}
