package io.pigeon.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Churn: the full v1 cycle through wrk on one shared queue for {@code bench.soak.minutes} (10) intervals of
 * {@code bench.soak.seconds} (60) with {@code bench.clients} connections (8 unless one count is given), printing
 * each interval's messages/s, claim p50/p99, and the sizes, live and dead
 * tuples and vacuum counts of the two hot tables ({@code pg_stat_user_tables} through {@code psql}, with the
 * usual {@code PG*} variables). A soak passes when throughput shows no downward trend and the sizes stop
 * growing.
 */
final class SoakBench {

    private static final String TABLE_STATE =
            """
            SELECT string_agg(format('%s heap %s idx %s live %s dead %s vacuums %s+%s', relname,
                       pg_size_pretty(pg_relation_size(relid)), pg_size_pretty(pg_indexes_size(relid)),
                       n_live_tup, n_dead_tup, vacuum_count, autovacuum_count), ' | ' ORDER BY relname)
            FROM pg_stat_user_tables WHERE relname IN ('messages', 'claims')""";

    private SoakBench() {}

    static void run(String url, int seconds, int connections) throws Exception {
        int intervals = Integer.parseInt(System.getProperty("bench.soak.minutes", "10"));
        RatioBench cycle = RatioBench.unpinned(url, seconds, "shared");
        System.out.printf(
                "Soak: full v1 cycle, %d connections on one queue, %d intervals of %d s%n",
                connections, intervals, seconds);
        System.out.println("before: " + tableState());
        for (int interval = 1; interval <= intervals; interval++) {
            RatioBench.Run run = cycle.http("v1", connections, 0);
            String claim = run.latencies().stream()
                    .filter(l -> l.startsWith("claim"))
                    .findFirst()
                    .orElse("claim -");
            System.out.printf(
                    Locale.ROOT, "%3d  %6.0f msg/s  %s  %s%n", interval, run.messagesPerSecond(), claim, tableState());
        }
    }

    private static String tableState() throws Exception {
        return RatioBench.execute(List.of("psql", "-X", "-At", "-c", TABLE_STATE), Map.of())
                .trim();
    }
}
