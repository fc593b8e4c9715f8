package io.pigeon.dispatch;

import io.pigeon.quota.Quotas;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * The SQL of the delivery engine. Due groups are taken with {@code FOR UPDATE SKIP LOCKED} and a lease
 * token, so any number of dispatchers share the work; completing or releasing a group needs the token it
 * was taken with (the seed's locker), so a dispatcher whose lease ran out cannot undo another's work.
 * Every time is the database's.
 */
@ApplicationScoped
public class DispatchStore {

    /** The channel a push notifies, so that every replica's dispatcher re-plans at once. */
    public static final String CHANNEL = "pigeon_dispatch";

    // While a group is leased its fire time is the lease's end, and a push records the time it asks for in
    // next_fire_at instead (the overwrite flag is always set during a call, as in the seed's Get).
    // Bounds, each failing the whole statement with its refusal: the project's pending groups, items and bytes
    // (over their quotas when the usage check last counted: $11 to $13), the ontime horizon ($14 seconds ahead of
    // the database's now, $15), and the group's items ($16, $17). The last is checked on the group's row as the
    // upsert has locked it, after any concurrent push to the group has committed: it holds exactly.
    private static final String ENQUEUE =
            """
            WITH g AS (
                INSERT INTO dispatch_groups AS g (project, merge_key, method, target, mergeable, envelope, fire_at,
                                                  items, item_bytes)
                SELECT $1, $2, $3, $4, $5, 'array', COALESCE(to_timestamp($6::float8), now()), 1, octet_length($8::text)
                WHERE (NOT EXISTS (SELECT 1 FROM quota_breaches b
                                   WHERE b.project = $1 AND b.kind IN ('groups', 'items', 'bytes') AND b.queue_id = 0)
                       OR pigeon_refuse('429', (SELECT CASE b.kind WHEN 'groups' THEN $11 WHEN 'items' THEN $12 ELSE $13 END
                                                FROM quota_breaches b
                                                WHERE b.project = $1 AND b.kind IN ('groups', 'items', 'bytes')
                                                  AND b.queue_id = 0
                                                ORDER BY b.kind LIMIT 1)))
                  AND ($6::float8 IS NULL OR to_timestamp($6::float8) <= now() + $14 * interval '1 second'
                       OR pigeon_refuse('400', $15))
                ON CONFLICT (project, merge_key, method, target) WHERE mergeable AND state = 'pending'
                DO UPDATE SET
                    fire_at = CASE WHEN g.lease_until > now() OR NOT ($7 OR g.overwrite) THEN g.fire_at
                                   ELSE EXCLUDED.fire_at END,
                    next_fire_at = CASE WHEN g.lease_until > now() AND ($7 OR g.overwrite) THEN EXCLUDED.fire_at
                                        ELSE g.next_fire_at END,
                    items = g.items + 1, item_bytes = g.item_bytes + EXCLUDED.item_bytes
                WHERE g.items < $16 OR pigeon_refuse('429', $17)
                RETURNING id, fire_at, next_fire_at, lease_until > now() AS in_flight),
            item AS (
                INSERT INTO dispatch_items (group_id, body) SELECT id, $8 FROM g RETURNING id, group_id)
            SELECT item.id AS item_id, item.group_id,
                   extract(epoch FROM CASE WHEN g.in_flight THEN g.next_fire_at ELSE g.fire_at END)::float8 AS fire_at,
                   extract(epoch FROM g.fire_at)::float8 AS due_at
            FROM item JOIN g ON g.id = item.group_id
            LEFT JOIN LATERAL (
                SELECT pg_notify('%s', extract(epoch FROM g.fire_at)::text)
                WHERE $9 AND g.fire_at < now() + $10 * interval '1 millisecond') AS signal ON true"""
                    .formatted(CHANNEL);

    // A call Pigeon sends itself: one unmergeable group, due now, its body in the row ('single', as notifications),
    // which counts what it holds toward the project's bytes as a notification does.
    private static final String CALL =
            """
            INSERT INTO dispatch_groups (project, merge_key, method, target, mergeable, envelope, body, headers, fire_at,
                                         item_bytes)
            VALUES ($1, $2, $3, $4, false, 'single', $5, $6::text::json, now(),
                    octet_length($5::text) + COALESCE(octet_length($6::text), 0))
            RETURNING extract(epoch FROM fire_at)::float8 AS due_at""";

    private static final String PATH = "g.project = $1 AND g.merge_key = $2 AND g.method = $3 AND g.target = $4";

    // A page of a path's pending items in arrival order after the marker item: at most $6 items and, but for
    // the first, $7 bytes of bodies. The cut is made here, on the bodies' sizes (octet_length reads a stored
    // body's length from its header, without reading or decompressing the body): only the page's bodies leave
    // the database. The first row past the page comes without its body and says that more follow; $6 + 1 rows
    // of ids and sizes are read at most.
    private static final String VIEW =
            """
            WITH page AS (
                SELECT s.*, s.n > $6 OR (s.n > 1 AND s.upto > $7) AS beyond
                FROM (
                    SELECT p.*, row_number() OVER w AS n, sum(p.size) OVER w AS upto
                    FROM (
                        SELECT g.id, g.attempts, g.last_error, COALESCE(g.lease_until > now(), false) AS in_flight,
                               extract(epoch FROM CASE WHEN g.lease_until > now() THEN COALESCE(g.next_fire_at, g.fire_at)
                                                       ELSE g.fire_at END)::float8 AS fire_at,
                               i.id AS item_id, octet_length(i.body) AS size,
                               extract(epoch FROM i.created_at)::float8 AS item_created
                        FROM dispatch_groups g JOIN dispatch_items i ON i.group_id = g.id
                        WHERE %s AND g.state = 'pending' AND i.id > $5
                        ORDER BY i.id
                        LIMIT $6 + 1) p
                    WINDOW w AS (ORDER BY p.item_id)) s)
            SELECT page.id, page.attempts, page.last_error, page.in_flight, page.fire_at, page.item_id,
                   page.item_created, i.body, page.beyond
            FROM page
            LEFT JOIN dispatch_items i ON NOT page.beyond AND i.group_id = page.id AND i.id = page.item_id
            WHERE NOT page.beyond OR page.n = (SELECT min(n) FROM page WHERE beyond)
            ORDER BY page.item_id"""
                    .formatted(PATH);

    private static final String DELETE_PATH =
            """
            DELETE FROM dispatch_groups g WHERE %s AND g.state = 'pending'""".formatted(PATH);

    // MATERIALIZED: the locking scan runs exactly once, whatever the planner thinks of the table's size.
    // Fairness: projects already at their share of this replica's calls ($4) are skipped, and of the rest each
    // gets at most its remaining share ($5/$6 the calls each has in flight, $7 the share); a due group locked
    // but not chosen stays as it was. Items: the oldest, at most $3 and $8 bytes of bodies (one always goes).
    private static final String TAKE_DUE =
            """
            WITH due AS MATERIALIZED (
                SELECT id, project, fire_at FROM dispatch_groups
                WHERE state = 'pending' AND fire_at <= now() AND project <> ALL($4::text[])
                ORDER BY fire_at
                LIMIT $1
                FOR UPDATE SKIP LOCKED),
            chosen AS (
                SELECT d.id, d.fire_at FROM (
                    SELECT due.id, due.fire_at, due.project,
                           row_number() OVER (PARTITION BY due.project ORDER BY due.fire_at, due.id) AS n
                    FROM due) d
                LEFT JOIN unnest($5::text[], $6::int[]) AS busy (project, calls) ON busy.project = d.project
                WHERE d.n + COALESCE(busy.calls, 0) <= $7)
            UPDATE dispatch_groups g
            SET lease_token = gen_random_uuid(), lease_until = now() + $2 * interval '1 millisecond',
                fire_at = now() + $2 * interval '1 millisecond', next_fire_at = NULL, overwrite = true,
                attempts = g.attempts + 1
            FROM chosen
            LEFT JOIN LATERAL (
                SELECT array_agg(s.id ORDER BY s.id) FILTER (WHERE s.taken) AS item_ids,
                       array_agg(s.body ORDER BY s.id) FILTER (WHERE s.taken) AS bodies,
                       COALESCE(bool_or(NOT s.taken), false) AS more
                FROM (SELECT x.id, x.body,
                             row_number() OVER w <= $3
                                 AND (row_number() OVER w = 1 OR sum(octet_length(x.body)) OVER w <= $8) AS taken
                      FROM (SELECT i.id, i.body FROM dispatch_items i WHERE i.group_id = chosen.id
                            ORDER BY i.id LIMIT $3 + 1) x
                      WINDOW w AS (ORDER BY x.id)) s) items ON true
            WHERE g.id = chosen.id
            RETURNING g.id, g.lease_token, g.project, g.merge_key, g.method, g.target, g.envelope, g.headers::text AS headers,
                      g.retry_policy::text AS retry_policy, g.attempts, g.body AS single_body,
                      g.sealed_body, g.sealed_key_id, g.traceparent,
                      extract(epoch FROM now() - g.created_at)::float8 AS age,
                      extract(epoch FROM now() - chosen.fire_at)::float8 AS lateness,
                      items.item_ids, items.bodies, items.more""";

    // The next fire time that this replica could act on: projects at their share are left out.
    private static final String NEXT_DUE =
            """
            SELECT extract(epoch FROM now())::float8 AS now, extract(epoch FROM min(fire_at))::float8 AS next_due
            FROM dispatch_groups WHERE state = 'pending' AND project <> ALL($1::text[])""";

    // One round trip; the rules (and why they are safe against concurrent pushes) are in the function.
    private static final String COMPLETE = "SELECT dispatch_complete($1, $2, $3::bigint[], $4)";

    private static final String RELEASE =
            """
            UPDATE dispatch_groups
            SET lease_token = NULL, lease_until = NULL, next_fire_at = NULL, last_error = $3,
                fire_at = now() + $4 * interval '1 millisecond'
            WHERE id = $1 AND lease_token = $2""";

    // A call not made (its target address was past its call rate): the group is due again later, and the attempt its
    // take counted is given back; a fire time a push asked for meanwhile cannot come sooner than the rate allows.
    private static final String DEFER =
            """
            UPDATE dispatch_groups
            SET lease_token = NULL, lease_until = NULL, next_fire_at = NULL, attempts = greatest(attempts - 1, 0),
                fire_at = now() + $3 * interval '1 millisecond'
            WHERE id = $1 AND lease_token = $2""";

    private static final String BURY =
            """
            UPDATE dispatch_groups
            SET lease_token = NULL, lease_until = NULL, next_fire_at = NULL, last_error = $3,
                state = 'dead', dead_at = now()
            WHERE id = $1 AND lease_token = $2""";

    /** Longest last error kept on a subscription's row (migration V23's check); longer texts are cut. */
    public static final int LAST_ERROR_CHARS = 300;

    // A notification's outcome on its subscription's row, for the console. A delivery writes its time at most once a
    // second per subscription (a busy subscription's row is not rewritten per call, and a row that matches nothing is
    // not locked); a failure always counts, with its error cut to LAST_ERROR_CHARS. A subscription deleted meanwhile
    // matches no row.
    private static final String SUBSCRIPTION_DELIVERED =
            """
            UPDATE subscriptions SET last_delivered_at = now()
            WHERE id = $1 AND project = $2
              AND (last_delivered_at IS NULL OR last_delivered_at < now() - interval '1 second')""";

    private static final String SUBSCRIPTION_FAILED =
            """
            UPDATE subscriptions
            SET failures = failures + 1, last_failed_at = now(), last_error = left($3, %d)
            WHERE id = $1 AND project = $2"""
                    .formatted(LAST_ERROR_CHARS);

    private static final String LIST_DEAD =
            """
            SELECT g.id, g.merge_key, g.method, g.target, g.attempts, g.last_error,
                   extract(epoch FROM g.dead_at)::float8 AS dead_at, extract(epoch FROM g.created_at)::float8 AS created_at,
                   CASE WHEN g.envelope = 'single' THEN 1
                        ELSE (SELECT count(*) FROM dispatch_items i WHERE i.group_id = g.id) END AS items
            FROM dispatch_groups g
            WHERE g.project = $1 AND g.state = 'dead' AND g.id > $2
            ORDER BY g.id
            LIMIT $3""";

    // The console's view of a project's pending /v3 groups, the soonest due first, at most $2. The project's pending
    // groups are found through the path index (project first) and the first $2 by due time kept by a top-N sort: its
    // cost grows with the project's pending groups (bounded by pigeon.quotas.max-pending-groups-per-project), which a
    // console page can afford and the hot paths never pay. A group in flight is due when its lease ends.
    private static final String LIST_PENDING_BY_DUE =
            """
            SELECT g.id, g.merge_key, g.method, g.target, g.attempts, g.last_error, g.items,
                   extract(epoch FROM g.fire_at - now())::float8 AS due_in,
                   coalesce(g.lease_until > now(), false) AS in_flight
            FROM dispatch_groups g
            WHERE g.project = $1 AND g.state = 'pending' AND g.envelope = 'array'
            ORDER BY g.fire_at, g.id
            LIMIT $2""";

    // A dead group goes back alone when it is within the per-group limit ($3, refusal $4): it always is, unless
    // the limit was lowered since its items were pushed.
    private static final String REQUEUE =
            """
            UPDATE dispatch_groups
            SET state = 'pending', dead_at = NULL, attempts = 0, overwrite = false, last_error = NULL,
                created_at = now(), fire_at = now()
            WHERE project = $1 AND id = $2 AND state = 'dead' AND (items <= $3 OR pigeon_refuse('429', $4))
            RETURNING id""";

    private static final String FIND_LIVE_TWIN =
            """
            SELECT live.id FROM dispatch_groups dead
            JOIN dispatch_groups live ON live.project = dead.project AND live.merge_key = dead.merge_key
                 AND live.method = dead.method AND live.target = dead.target
                 AND live.mergeable AND live.state = 'pending'
            WHERE dead.project = $1 AND dead.id = $2 AND dead.state = 'dead'
            FOR UPDATE""";

    // The dead group's items join the live one, and its counts with them, when together they are within the
    // per-group limit ($3), else the statement fails whole with its refusal ($4) and nothing moves. The live row is
    // locked (FIND_LIVE_TWIN) and the moved rows counted as they move, so the limit holds exactly, as a push's does.
    private static final String MOVE_ITEMS =
            """
            WITH moved AS (
                UPDATE dispatch_items SET group_id = $2 WHERE group_id = $1 RETURNING octet_length(body) AS size),
            counted AS (SELECT count(*) AS items, COALESCE(sum(size), 0) AS bytes FROM moved)
            UPDATE dispatch_groups g
            SET items = g.items + c.items, item_bytes = g.item_bytes + c.bytes
            FROM counted c
            WHERE g.id = $2 AND (g.items + c.items <= $3 OR pigeon_refuse('429', $4))""";

    private static final String DELETE_GROUP = "DELETE FROM dispatch_groups WHERE id = $1";

    private static final String FIRE_NOW =
            """
            UPDATE dispatch_groups
            SET fire_at = CASE WHEN lease_until > now() THEN fire_at ELSE now() END,
                next_fire_at = CASE WHEN lease_until > now() THEN now() ELSE next_fire_at END
            WHERE id = $1""";

    private static final String DROP_DEAD =
            """
            DELETE FROM dispatch_groups WHERE project = $1 AND id = $2 AND state = 'dead'""";

    private static final String NOTIFY = "SELECT pg_notify('" + CHANNEL + "', '')";

    /** Tells every replica's dispatcher to look now. */
    public Uni<Void> announce(SqlClient db) {
        return db.query(NOTIFY).execute().replaceWithVoid();
    }

    private final Quotas quotas;
    private final Horizon horizon;

    public DispatchStore(Quotas quotas, DispatchSettings dispatchSettings) {
        this.quotas = quotas;
        this.horizon = Horizon.of(dispatchSettings.ontimeHorizon());
    }

    /** How far ahead a push's ontime may be, and the words of its refusal (made once: sent with every push). */
    record Horizon(long seconds, String refusal) {
        static Horizon of(Duration horizon) {
            return new Horizon(
                    horizon.toSeconds(),
                    "The \"ontime\" parameter is invalid. The value may be at most " + horizon.toSeconds()
                            + " seconds after now (pigeon.dispatch.ontime-horizon).");
        }
    }

    /**
     * What a push stored: its item, its group, the time the group will fire for it ({@code fireAt}) and the
     * time the dispatcher finds the group due ({@code dueAt}: the lease's end while a call is running), as
     * unix seconds by the database clock.
     */
    public record Enqueued(long itemId, long groupId, double fireAt, double dueAt) {}

    /** The database clock's now and the earliest pending fire time (null when nothing is pending), unix seconds. */
    public record NextDue(double now, Double nextDue) {}

    public record PendingItem(long id, String body, double created) {}

    public record PendingGroup(
            long id, double fireAt, int attempts, boolean inFlight, String lastError, List<PendingItem> items) {}

    /** A group taken for a call: what to call, with which items, and the lease that must be shown to finish. */
    public record TakenGroup(
            long id,
            UUID leaseToken,
            String project,
            String method,
            String target,
            String headersJson,
            String retryPolicyJson,
            int attempts,
            double ageSeconds,
            double latenessSeconds,
            long[] itemIds,
            byte[] payload,
            boolean empty,
            boolean moreItems,
            String sealedBody,
            String sealedKeyId,
            Long subscription,
            String traceparent) {

        /** This group, its calls carrying {@code sent} as their {@code traceparent} (a delivery span's context). */
        public TakenGroup carrying(String sent) {
            return Objects.equals(sent, traceparent)
                    ? this
                    : new TakenGroup(
                            id,
                            leaseToken,
                            project,
                            method,
                            target,
                            headersJson,
                            retryPolicyJson,
                            attempts,
                            ageSeconds,
                            latenessSeconds,
                            itemIds,
                            payload,
                            empty,
                            moreItems,
                            sealedBody,
                            sealedKeyId,
                            subscription,
                            sent);
        }
    }

    /** The part of a listing's row that says which group it is, its path and its calls so far. */
    private static ListedGroup listedGroup(Row row) {
        return new ListedGroup(
                row.getLong("id"),
                row.getString("merge_key"),
                row.getString("method"),
                row.getString("target"),
                row.getInteger("attempts"),
                row.getString("last_error"));
    }

    /**
     * A push as the enqueue statement takes it; the record owns the order of its parameters ($1 to $10 as
     * declared, then the bounds and their refusal texts). {@code ontime} null means now; {@code alwaysRetime} lets the
     * push's time replace an existing group's. With {@code announceWithinMillis} set, other replicas are
     * notified when the group is due within that time (a later group is seen by their regular re-planning).
     */
    public record Push(
            String project,
            String mergeKey,
            DispatchAddress address,
            boolean mergeable,
            Double ontime,
            boolean alwaysRetime,
            String body,
            Long announceWithinMillis) {
        Tuple parameters(Quotas quotas, Horizon horizon) {
            return Tuple.from(List.of(
                            project,
                            mergeKey,
                            address.method(),
                            address.target().toString(),
                            mergeable))
                    .addDouble(ontime)
                    .addBoolean(alwaysRetime)
                    .addString(body)
                    .addBoolean(announceWithinMillis != null)
                    .addLong(announceWithinMillis == null ? 0 : announceWithinMillis)
                    .addString(quotas.groups())
                    .addString(quotas.pendingItems())
                    .addString(quotas.pendingBytes())
                    .addLong(horizon.seconds())
                    .addString(horizon.refusal())
                    .addInteger(quotas.limits().maxItemsPerGroup())
                    .addString(quotas.itemsPerGroup());
        }
    }

    /**
     * A path (project, merge key, method and target) on the database its groups live on: what a statement of one
     * path takes first. The record owns the path's parameters, $1 to $4 of every statement that names one.
     */
    public record Path(SqlClient db, String project, String mergeKey, DispatchAddress address) {
        Tuple parameters() {
            return Tuple.of(
                    project, mergeKey, address.method(), address.target().toString());
        }
    }

    /**
     * Stores a call Pigeon sends itself (merge key starting with '-', so it never merges), with {@code body} sent
     * as it is and extra {@code headersJson} (a JSON object, or null); the time it is due, in unix seconds.
     */
    public Uni<Double> call(Path path, String body, String headersJson) {
        return path.db()
                .preparedQuery(CALL)
                .execute(path.parameters().addString(body).addString(headersJson))
                .map(rows -> rows.iterator().next().getDouble("due_at"));
    }

    /** Stores a push. */
    public Uni<Enqueued> enqueue(SqlClient db, Push push) {
        return db.preparedQuery(ENQUEUE)
                .execute(push.parameters(quotas, horizon))
                .map(rows -> {
                    Row row = rows.iterator().next();
                    return new Enqueued(
                            row.getLong("item_id"),
                            row.getLong("group_id"),
                            row.getDouble("fire_at"),
                            row.getDouble("due_at"));
                });
    }

    /** A page of a path's pending items, grouped, and whether more follow it. */
    public record PendingPage(List<PendingGroup> groups, boolean more) {}

    /**
     * The pending items of a path after item {@code marker}, in arrival order, with their groups: at most
     * {@code maxItems} items and {@code maxBytes} of bodies (one item always, whatever its size).
     */
    public Uni<PendingPage> pending(Path path, long marker, int maxItems, int maxBytes) {
        return path.db()
                .preparedQuery(VIEW)
                .execute(path.parameters().addLong(marker).addInteger(maxItems).addInteger(maxBytes))
                .map(DispatchStore::page);
    }

    private static PendingPage page(RowSet<Row> rows) {
        List<PendingGroup> groups = new ArrayList<>();
        List<PendingItem> items = null;
        long current = -1;
        boolean more = false;
        for (Row row : rows) {
            if (row.getBoolean("beyond")) {
                more = true;
                break;
            }
            long id = row.getLong("id");
            if (id != current) {
                current = id;
                items = new ArrayList<>();
                groups.add(new PendingGroup(
                        id,
                        row.getDouble("fire_at"),
                        row.getInteger("attempts"),
                        row.getBoolean("in_flight"),
                        row.getString("last_error"),
                        items));
            }
            items.add(new PendingItem(row.getLong("item_id"), row.getString("body"), row.getDouble("item_created")));
        }
        return new PendingPage(groups, more);
    }

    /** Deletes every pending group of a path with its items; how many groups. */
    public Uni<Integer> deletePending(Path path) {
        return path.db().preparedQuery(DELETE_PATH).execute(path.parameters()).map(RowSet::rowCount);
    }

    /** Leases up to {@code count} due groups, with no share per project and no byte bound (tests, tools). */
    public Uni<List<TakenGroup>> takeDue(SqlClient db, int count, long leaseMillis, int maxItems) {
        return takeDue(db, count, leaseMillis, maxItems, Integer.MAX_VALUE, Map.of(), Integer.MAX_VALUE);
    }

    /**
     * Leases up to {@code count} due groups for {@code leaseMillis}, each with its oldest items up to
     * {@code maxItems} and {@code maxCallBytes} of bodies (at least one item). A project with
     * {@code busyProjects.get(p)} calls in flight gets at most {@code perProject} minus those.
     */
    public Uni<List<TakenGroup>> takeDue(
            SqlClient db,
            int count,
            long leaseMillis,
            int maxItems,
            int maxCallBytes,
            Map<String, Integer> busyProjects,
            int perProject) {
        String[] busy = busyProjects.keySet().toArray(String[]::new);
        Integer[] calls = Arrays.stream(busy).map(busyProjects::get).toArray(Integer[]::new);
        String[] saturated = saturated(busyProjects, perProject).toArray(String[]::new);
        Tuple params = Tuple.of(count, leaseMillis, maxItems)
                .addArrayOfString(saturated)
                .addArrayOfString(busy)
                .addArrayOfInteger(calls)
                .addInteger(perProject)
                .addInteger(maxCallBytes);
        return db.preparedQuery(TAKE_DUE).execute(params).map(rows -> {
            List<TakenGroup> taken = new ArrayList<>(rows.size());
            for (Row row : rows) {
                Long[] ids = row.getArrayOfLongs("item_ids");
                String[] bodies = row.getArrayOfStrings("bodies");
                // A 'single' group carries its body in the row and has no items to remove.
                boolean single = row.getString("envelope").equals("single");
                byte[] payload;
                boolean empty;
                if (single) {
                    String body = row.getString("single_body");
                    empty = body == null;
                    payload = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
                } else {
                    empty = bodies == null || bodies.length == 0;
                    payload = empty
                            ? new byte[0]
                            : ("[" + String.join(",", bodies) + "]").getBytes(StandardCharsets.UTF_8);
                }
                taken.add(new TakenGroup(
                        row.getLong("id"),
                        row.getUUID("lease_token"),
                        row.getString("project"),
                        row.getString("method"),
                        row.getString("target"),
                        row.getString("headers"),
                        row.getString("retry_policy"),
                        row.getInteger("attempts"),
                        row.getDouble("age"),
                        row.getDouble("lateness"),
                        ids == null
                                ? new long[0]
                                : Arrays.stream(ids).mapToLong(Long::longValue).toArray(),
                        payload,
                        empty,
                        Boolean.TRUE.equals(row.getBoolean("more")),
                        row.getString("sealed_body"),
                        row.getString("sealed_key_id"),
                        single ? NotificationFanOut.subscriptionOf(row.getString("merge_key")) : null,
                        row.getString("traceparent")));
            }
            return taken;
        });
    }

    /** The projects whose calls in flight have reached their share: no group of theirs is taken. */
    public static Set<String> saturated(Map<String, Integer> busyProjects, int perProject) {
        Set<String> saturated = new HashSet<>();
        busyProjects.forEach((project, calls) -> {
            if (calls >= perProject) {
                saturated.add(project);
            }
        });
        return saturated;
    }

    public Uni<NextDue> nextDue(SqlClient db, Set<String> saturatedProjects) {
        return db.preparedQuery(NEXT_DUE)
                .execute(Tuple.tuple().addArrayOfString(saturatedProjects.toArray(String[]::new)))
                .map(rows -> {
                    Row row = rows.iterator().next();
                    return new NextDue(row.getDouble("now"), row.getDouble("next_due"));
                });
    }

    /**
     * After a successful call: removes exactly the delivered items; the group goes if nothing else is left,
     * else it keeps the fire time a push asked for meanwhile (now, when it still holds undelivered items).
     */
    public Uni<Void> complete(SqlClient db, TakenGroup group) {
        Long[] ids = Arrays.stream(group.itemIds()).boxed().toArray(Long[]::new);
        return db.preparedQuery(COMPLETE)
                .execute(Tuple.of(group.id(), group.leaseToken())
                        .addArrayOfLong(ids)
                        .addBoolean(group.moreItems()))
                .replaceWithVoid();
    }

    /** After a failed call: the group is called again in {@code retryMillis}. */
    public Uni<Void> release(SqlClient db, TakenGroup group, String error, long retryMillis) {
        return db.preparedQuery(RELEASE)
                .execute(Tuple.of(group.id(), group.leaseToken(), error, retryMillis))
                .replaceWithVoid();
    }

    /** A call that was not made, for the call rate of its target: the group is due again in {@code millis}. */
    public Uni<Void> defer(SqlClient db, TakenGroup group, long millis) {
        return db.preparedQuery(DEFER)
                .execute(Tuple.of(group.id(), group.leaseToken(), millis))
                .replaceWithVoid();
    }

    /**
     * Records a notification call's outcome on its subscription (delivered, or failed with {@code error}); nothing for
     * a group that is not a subscription's notification.
     */
    public Uni<Void> recordForSubscription(SqlClient db, TakenGroup group, boolean delivered, String error) {
        if (group.subscription() == null) {
            return Uni.createFrom().voidItem();
        }
        Tuple arguments = delivered
                ? Tuple.of(group.subscription(), group.project())
                : Tuple.of(group.subscription(), group.project(), error == null ? "failed" : error);
        return db.preparedQuery(delivered ? SUBSCRIPTION_DELIVERED : SUBSCRIPTION_FAILED)
                .execute(arguments)
                .replaceWithVoid();
    }

    /** After a failed call that was the last allowed: the group moves to the dead state with its items. */
    public Uni<Void> bury(SqlClient db, TakenGroup group, String error) {
        return db.preparedQuery(BURY)
                .execute(Tuple.of(group.id(), group.leaseToken(), error))
                .replaceWithVoid();
    }

    /** The project's pending /v3 groups on {@code db}, soonest due first, at most {@code limit}. */
    public Uni<List<DuePendingGroup>> pendingByDue(SqlClient db, String project, int limit) {
        return listed(
                db.preparedQuery(LIST_PENDING_BY_DUE).execute(Tuple.of(project, limit)),
                row -> new DuePendingGroup(
                        listedGroup(row),
                        row.getInteger("items"),
                        row.getDouble("due_in"),
                        row.getBoolean("in_flight")));
    }

    public Uni<List<DeadGroup>> dead(SqlClient db, String project, long marker, int limit) {
        return listed(
                db.preparedQuery(LIST_DEAD).execute(Tuple.of(project, marker, limit)),
                row -> new DeadGroup(
                        listedGroup(row), row.getDouble("dead_at"), row.getDouble("created_at"), row.getLong("items")));
    }

    /**
     * The rows of a listing statement, each read into one record by {@code read}. It takes the statement's execution,
     * not its text, so that each statement is sent where its constant is named (docs/sql/statements.sql).
     */
    private static <T> Uni<List<T>> listed(Uni<RowSet<Row>> execution, Function<Row, T> read) {
        return execution.map(rows -> {
            List<T> listed = new ArrayList<>(rows.size());
            for (Row row : rows) {
                listed.add(read.apply(row));
            }
            return listed;
        });
    }

    /**
     * Puts a dead group back to be called at once, with fresh attempts. If its key has a pending group
     * meanwhile, its items join that one (ahead of the newer items, as they arrived first), unless together they
     * would pass {@code pigeon.quotas.max-items-per-group} (then the statement fails with that refusal and
     * nothing changes). False when there is no such dead group.
     */
    public Uni<Boolean> requeue(Pool pool, String project, long id) {
        int perGroup = quotas.limits().maxItemsPerGroup();
        String perGroupRefusal = quotas.requeuedItemsPerGroup();
        return pool.withTransaction(connection -> connection
                .preparedQuery(FIND_LIVE_TWIN)
                .execute(Tuple.of(project, id))
                .flatMap(twins -> {
                    if (twins.size() == 0) {
                        return connection
                                .preparedQuery(REQUEUE)
                                .execute(Tuple.of(project, id, perGroup, perGroupRefusal))
                                .map(rows -> rows.size() > 0);
                    }
                    long live = twins.iterator().next().getLong(0);
                    return connection
                            .preparedQuery(MOVE_ITEMS)
                            .execute(Tuple.of(id, live, perGroup, perGroupRefusal))
                            .flatMap(moved ->
                                    connection.preparedQuery(DELETE_GROUP).execute(Tuple.of(id)))
                            .flatMap(deleted ->
                                    connection.preparedQuery(FIRE_NOW).execute(Tuple.of(live)))
                            .map(fired -> true);
                })
                .call(requeued -> requeued
                        ? connection.query(NOTIFY).execute()
                        : Uni.createFrom().nullItem()));
    }

    public Uni<Boolean> dropDead(SqlClient db, String project, long id) {
        return db.preparedQuery(DROP_DEAD).execute(Tuple.of(project, id)).map(rows -> rows.rowCount() > 0);
    }
}
