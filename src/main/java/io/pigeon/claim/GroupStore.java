package io.pigeon.claim;

import io.pigeon.queue.PlacedQueue;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The SQL of a queue's groups as the console shows them (decision 0020): the groups live claims hold, and each group's
 * oldest waiting message. Both are read in group order, at most a page of groups, through the indexes of migration V31
 * that hold grouped rows only, so that a queue of 100,000 groups costs a page of them, not all.
 */
@ApplicationScoped
public class GroupStore {

    // The groups a live claim holds a message of, in group order, at most $3: a skip scan over V31's
    // messages_group_claimed (the claimed grouped rows, live or ended), one probe per group, then the group's live
    // claimed rows (in fifo, of one claim). A row counts while its claim and its message live, as V31's
    // pigeon_fifo_free decides what blocks a group. A plain GROUP BY ... LIMIT was planned as a sort of every claimed
    // row of the queue; this reads a page of groups (EXPLAIN in docs/operations.md, "Groups of a fifo queue").
    static final String BLOCKED =
            """
            WITH RECURSIVE queue AS MATERIALIZED (SELECT id FROM queues WHERE project = $1 AND name = $2),
            g (message_group) AS (
                (SELECT m.message_group FROM messages m
                 WHERE m.queue_id = (SELECT id FROM queue) AND m.claim_id IS NOT NULL AND m.message_group IS NOT NULL
                   AND m.claim_expires_at > now() AND m.expires_at > now()
                 ORDER BY m.message_group LIMIT 1)
                UNION ALL
                SELECT (SELECT m.message_group FROM messages m
                        WHERE m.queue_id = (SELECT id FROM queue) AND m.claim_id IS NOT NULL
                          AND m.message_group > g.message_group
                          AND m.claim_expires_at > now() AND m.expires_at > now()
                        ORDER BY m.message_group LIMIT 1)
                FROM g WHERE g.message_group IS NOT NULL)
            SELECT g.message_group, h.held, h.claim_id, h.remaining
            FROM g
            CROSS JOIN LATERAL (
                SELECT count(*) AS held, min(m.claim_id::text) AS claim_id,
                       ceil(extract(epoch FROM min(m.claim_expires_at) - now()))::bigint AS remaining
                FROM messages m
                WHERE m.queue_id = (SELECT id FROM queue) AND m.message_group = g.message_group
                  AND m.claim_id IS NOT NULL AND m.claim_expires_at > now() AND m.expires_at > now()) h
            WHERE g.message_group IS NOT NULL
            LIMIT $3""";

    // Each group's oldest waiting message, in group order, at most $3 groups. Waiting: free (unclaimed, or its claim
    // has
    // ended: released, or expired before the sweeper returned it), visible (undelayed, or its delay is over) and
    // unexpired, as V31's pigeon_fifo_free takes them. The groups are found by a skip scan in group order over V31's
    // three indexes of grouped rows (ready, delayed, claimed: together every grouped row), one probe of each per group;
    // each group's oldest waiting row is the least of the first in each of them that qualifies, and the group is
    // blocked when a live claim holds a message of it (a probe of messages_group_claimed). The recursion is read only
    // as far as the limit needs. The lateral probe is fenced (OFFSET 0) so that it stays a nested loop under the
    // recursion, one probe by id per group, answering in group order: flattened, the planner is free to join it with
    // the queue's messages by hash, which answers in message order (once seen in a full test run: the console's list
    // came in message order) and reads every message of the queue.
    static final String WAITING =
            """
            WITH RECURSIVE queue AS MATERIALIZED (SELECT id FROM queues WHERE project = $1 AND name = $2),
            g (message_group) AS (
                SELECT %2$s
                UNION ALL
                SELECT %3$s FROM g WHERE g.message_group IS NOT NULL)
            SELECT g.message_group, o.id, floor(extract(epoch FROM now() - o.created_at))::bigint AS age,
                   EXISTS (SELECT 1 FROM messages c
                           WHERE c.queue_id = %1$s AND c.message_group = g.message_group
                             AND c.claim_id IS NOT NULL AND c.claim_expires_at > now() AND c.expires_at > now())
                       AS blocked
            FROM g
            CROSS JOIN LATERAL (
                SELECT m.id, m.created_at FROM messages m
                WHERE m.queue_id = %1$s
                  AND m.id = LEAST(
                      (SELECT r.id FROM messages r
                       WHERE r.queue_id = %1$s AND r.message_group = g.message_group
                         AND r.claim_id IS NULL AND r.visible_at IS NULL AND r.expires_at > now()
                       ORDER BY r.id LIMIT 1),
                      (SELECT d.id FROM messages d
                       WHERE d.queue_id = %1$s AND d.message_group = g.message_group
                         AND d.visible_at IS NOT NULL AND d.visible_at <= now()
                         AND (d.claim_id IS NULL OR d.claim_expires_at <= now()) AND d.expires_at > now()
                       ORDER BY d.id LIMIT 1),
                      (SELECT min(e.id) FROM messages e
                       WHERE e.queue_id = %1$s AND e.message_group = g.message_group
                         AND e.claim_id IS NOT NULL AND e.claim_expires_at <= now()
                         AND (e.visible_at IS NULL OR e.visible_at <= now()) AND e.expires_at > now()))
                OFFSET 0) o
            WHERE g.message_group IS NOT NULL
            LIMIT $3"""
                    .formatted("(SELECT id FROM queue)", nextGroup("IS NOT NULL"), nextGroup("> g.message_group"));

    /** The least group past {@code after} (a condition on m.message_group) among the three indexes of grouped rows. */
    private static String nextGroup(String after) {
        String probe =
                """
                (SELECT m.message_group FROM messages m
                 WHERE m.queue_id = (SELECT id FROM queue) AND %s AND m.message_group %s
                 ORDER BY m.message_group LIMIT 1)""";
        return "LEAST(\n    %s,\n    %s,\n    %s)"
                .formatted(
                        probe.formatted("m.claim_id IS NULL AND m.visible_at IS NULL", after),
                        probe.formatted("m.visible_at IS NOT NULL", after),
                        probe.formatted("m.claim_id IS NOT NULL", after));
    }

    /** A group a live claim holds: how many of its messages, which claim, and the seconds the claim has left. */
    public record Blocked(String group, long held, UUID claim, long remaining) {}

    /** A group's oldest waiting message (its row id) and its age in seconds; {@code blocked}: a live claim holds it. */
    public record Waiting(String group, long messageId, long age, boolean blocked) {}

    /** The first {@code limit} groups, in group order, that live claims hold. */
    public Uni<List<Blocked>> blocked(PlacedQueue queue, int limit) {
        return queue.db()
                .preparedQuery(BLOCKED)
                .execute(Tuple.of(queue.project(), queue.storedName(), limit))
                .map(rows -> {
                    List<Blocked> found = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        found.add(new Blocked(
                                row.getString("message_group"),
                                row.getLong("held"),
                                UUID.fromString(row.getString("claim_id")),
                                Math.max(0, row.getLong("remaining"))));
                    }
                    return found;
                });
    }

    /** The first {@code limit} groups, in group order, that have a waiting message, each with its oldest. */
    public Uni<List<Waiting>> waiting(PlacedQueue queue, int limit) {
        return queue.db()
                .preparedQuery(WAITING)
                .execute(Tuple.of(queue.project(), queue.storedName(), limit))
                .map(rows -> {
                    List<Waiting> found = new ArrayList<>(rows.size());
                    for (Row row : rows) {
                        found.add(new Waiting(
                                row.getString("message_group"),
                                row.getLong("id"),
                                Math.max(0, row.getLong("age")),
                                row.getBoolean("blocked")));
                    }
                    return found;
                });
    }
}
