package io.pigeon.bench;

import io.pigeon.claim.ClaimStatements;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The full cycle (v2: post 10, claim 10, delete those by ids, through {@code wrk}, all clients on one queue) on a queue
 * that also holds a backlog the cycle must not take, at each size of {@code bench.backlog} (0,1000000,10000000): claim,
 * delete and post p50/p99 and messages/s against the same queue empty. Two kinds ({@code bench.backlog.kinds}):
 * {@code delayed}, messages posted with a delay of 12 h, and {@code claimed}, messages held by live claims of 12 h
 * (ten a claim, as the cycle's). Posting ten million messages over HTTP takes too long, so the backlog is written in
 * SQL, one million rows a statement, as the stores write it: the columns of MessageStore's v2 post
 * (POST_CREATING_QUEUE) for a delayed post with a TTL of 14 days, and for the claimed kind what ClaimStore's claim
 * sets on the rows and the claims row it records. Only the delay goes beyond what a post may ask by default
 * ({@code pigeon.max-message-delay}, 900 s): with it the backlog would turn visible within the run. The backlog grows
 * from one size to the next, and is deleted in SQL at the end. After each size, the claim statement is explained
 * ({@code EXPLAIN (ANALYZE, BUFFERS)}, in a transaction rolled back, with Pigeon's session settings) unless
 * {@code bench.backlog.explain=false}.
 */
final class BacklogBench {

    private static final String CLIENT = "3381af92-2b9e-11e3-b191-71861300734c";
    private static final String BODY = "{\"event\":\"bench\",\"n\":0,\"pad\":\"0123456789abcdef\"}";
    private static final int TTL = 1_209_600;
    private static final int HELD = 43_200;
    private static final long ROWS_PER_STATEMENT = 1_000_000;

    private final String url;
    private final int seconds;
    private final BenchQueues queues;
    private final Optional<ProcessHandle> pigeon;

    private BacklogBench(String url, int seconds) {
        this.url = url;
        this.seconds = seconds;
        this.queues = new BenchQueues(url);
        this.pigeon = CycleRun.pigeon(url);
    }

    static void run(String url, int seconds, int[] clientCounts) throws Exception {
        long[] sizes = Arrays.stream(System.getProperty("bench.backlog", "0,1000000,10000000")
                        .split(","))
                .map(String::trim)
                .mapToLong(Long::parseLong)
                .sorted()
                .toArray();
        List<String> kinds = Arrays.stream(System.getProperty("bench.backlog.kinds", "delayed,claimed")
                        .split(","))
                .map(String::trim)
                .toList();
        if (kinds.stream().anyMatch(k -> !k.equals("delayed") && !k.equals("claimed"))) {
            throw new IllegalArgumentException("bench.backlog.kinds is delayed, claimed or both");
        }
        BacklogBench bench = new BacklogBench(url, seconds);
        System.out.printf(
                Locale.ROOT,
                "Backlog: v2 full cycle (post 10, claim 10, delete 10 by ids) on one queue that also holds a backlog the"
                        + " cycle must not take, written in SQL as a post stores it; %d s per run%n",
                seconds);
        System.out.printf(
                "%-8s %10s %7s %9s %6s  %-44s %s%n",
                "kind",
                "backlog",
                "clients",
                "msg/s",
                "/empty",
                "p50/p99 ms",
                "CPU ms per 1,000 msg (pigeon + postgres + wrk)");
        for (String kind : kinds) {
            bench.series(kind, sizes, clientCounts);
        }
    }

    private void series(String kind, long[] sizes, int[] clientCounts) throws Exception {
        String project = "bench-backlog-" + UUID.randomUUID();
        queues.create(List.of(project), 1);
        long queueId = Long.parseLong(
                BenchDatabase.query("SELECT id FROM queues WHERE project = '" + project + "' AND name = '1'"));
        Map<Integer, Double> empty = new HashMap<>();
        long present = 0;
        try {
            for (long size : sizes) {
                long started = System.nanoTime();
                for (long added = present; added < size; added += ROWS_PER_STATEMENT) {
                    add(kind, queueId, Math.min(ROWS_PER_STATEMENT, size - added));
                }
                BenchDatabase.query("VACUUM (ANALYZE) messages, claims");
                if (size > present) {
                    System.out.printf(
                            Locale.ROOT,
                            "(%s backlog of %d written in SQL in %.0f s, vacuumed and analyzed)%n",
                            kind,
                            size,
                            (System.nanoTime() - started) / 1e9);
                }
                present = size;
                for (int clients : clientCounts) {
                    CycleRun.Result run = CycleRun.run(
                            url,
                            clients,
                            seconds,
                            Map.of("BENCH_API", "v2", "BENCH_LAYOUT", "shared", "BENCH_PROJECT", project),
                            pigeon);
                    double perSecond = run.messagesPerSecond();
                    if (size == sizes[0]) {
                        empty.put(clients, perSecond);
                    }
                    System.out.printf(
                            Locale.ROOT,
                            "%-8s %10d %7d %9.0f %6.2f  %-44s %s%n",
                            kind,
                            size,
                            clients,
                            perSecond,
                            perSecond / empty.getOrDefault(clients, perSecond),
                            run.p50p99(),
                            run.cpuPerThousand());
                }
                if (size > 0 && Boolean.parseBoolean(System.getProperty("bench.backlog.explain", "true"))) {
                    explain(project);
                }
            }
        } finally {
            BenchDatabase.query("DELETE FROM claims WHERE queue_id = " + queueId
                    + "; DELETE FROM messages WHERE queue_id = " + queueId);
            queues.delete(List.of(project), 1);
            BenchDatabase.query("VACUUM (ANALYZE) messages, claims");
        }
    }

    /** {@code count} more rows of the backlog, in one statement. */
    private static void add(String kind, long queueId, long count) throws Exception {
        if (kind.equals("delayed")) {
            // MessageStore.POST_CREATING_QUEUE's insert for a post of a TTL of 14 days and a delay of 12 h.
            BenchDatabase.query(String.format(
                    Locale.ROOT,
                    "INSERT INTO messages (queue_id, client_id, ttl, body, expires_at, visible_at, key_id)"
                            + " SELECT %d, '%s', %d, '%s', now() + %d * interval '1 second',"
                            + " now() + %d * interval '1 second', NULL FROM generate_series(1, %d)",
                    queueId,
                    CLIENT,
                    TTL,
                    BODY,
                    TTL,
                    HELD,
                    count));
            return;
        }
        // Posted without a delay, then claimed for 12 h (grace 60 s) ten at a time: ClaimStore.CREATE_ONE's update of
        // the rows (its extended lifetime keeps the 14 days) and the claims row it records.
        String salt = UUID.randomUUID().toString();
        BenchDatabase.query(String.format(
                Locale.ROOT,
                "WITH inserted AS ("
                        + " INSERT INTO messages (queue_id, client_id, ttl, body, expires_at, visible_at, key_id, claim_id,"
                        + " claim_expires_at, claim_count)"
                        + " SELECT %1$d, '%2$s', %3$d, '%4$s', now() + %3$d * interval '1 second', NULL, NULL,"
                        + " md5('%5$s' || ((g - 1) / 10))::uuid, now() + %6$d * interval '1 second', 1"
                        + " FROM generate_series(1, %7$d) g"
                        + " RETURNING id, claim_id)"
                        + " INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)"
                        + " SELECT claim_id, %1$d, %6$d, 60, now() + %6$d * interval '1 second', array_agg(id ORDER BY id)"
                        + " FROM inserted GROUP BY claim_id",
                queueId,
                CLIENT,
                TTL,
                BODY,
                salt,
                HELD,
                count));
    }

    /** Posts ten messages over HTTP, then explains a claim of ten (which takes them) in a transaction rolled back. */
    private void explain(String project) throws Exception {
        String ten =
                "{\"messages\": [" + String.join(", ", Collections.nCopies(10, "{\"ttl\": 3600, \"body\": 1}")) + "]}";
        int status = queues.send("POST", project, "/v2/queues/1/messages", ten).statusCode();
        if (status != 201) {
            throw new IllegalStateException("the post before the explain answered " + status);
        }
        String plan = BenchDatabase.queryAsPigeon(
                "BEGIN",
                "PREPARE claim (text, text, uuid, int, int, int, int) AS " + ClaimStatements.CREATE_ONE,
                "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE claim ('" + project
                        + "', '1', gen_random_uuid(), 10, 60, 60, " + TTL + ")",
                "ROLLBACK");
        System.out.println(
                "    claim of 10 on this backlog, EXPLAIN (ANALYZE, BUFFERS) with Pigeon's session settings:");
        plan.lines().forEach(line -> System.out.println("      " + line));
    }
}
