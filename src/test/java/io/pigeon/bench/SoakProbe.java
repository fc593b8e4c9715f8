package io.pigeon.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the soak ({@link SoakBench}) reads of the system every interval besides latencies, to tell a steady state
 * from a slow leak: the machine's load average, each replica's heap after a full GC (through {@code jcmd}, so that
 * garbage not yet collected does not count), the hot tables' sizes (heap and indexes) and dead tuples, the
 * notifications waiting for delivery, and the database connections of each replica (by application_name).
 */
final class SoakProbe {

    /** The tables every request, delivery and sample writes. */
    static final List<String> HOT_TABLES =
            List.of("messages", "claims", "dispatch_groups", "queues", "queue_counters", "queue_samples");

    /** The heap's used size after a GC, per generation or region kind of G1, Parallel and Serial. */
    private static final Pattern USED = Pattern.compile(
            "(?m)^\\s*(?:garbage-first heap|def new generation|tenured generation|PSYoungGen|ParOldGen)\\s+"
                    + "total \\d+K, used (\\d+)K");

    private final List<Optional<ProcessHandle>> jvms;

    SoakProbe(List<Optional<ProcessHandle>> jvms) {
        this.jvms = jvms;
    }

    /** One table's size (heap, TOAST and indexes, bytes), dead tuples, and vacuums so far (manual and auto). */
    record Table(long bytes, long dead, long vacuums) {}

    /**
     * One reading: load average (1 min), heap after GC per replica (bytes, -1 unknown), tables, notifications
     * waiting, connections per application_name.
     */
    record State(
            double load,
            List<Long> heaps,
            Map<String, Table> tables,
            long waitingDeliveries,
            Map<String, Integer> connections) {}

    /** The machine's load average over the last minute. */
    double load() throws Exception {
        return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    }

    State take() throws Exception {
        double load = load();
        List<Long> heaps = new ArrayList<>();
        for (Optional<ProcessHandle> jvm : jvms) {
            heaps.add(jvm.map(SoakProbe::heapAfterGc).orElse(-1L));
        }
        Map<String, Table> tables = new LinkedHashMap<>();
        String sizes = BenchDatabase.query(
                "SELECT relname, pg_total_relation_size(relid), n_dead_tup, vacuum_count + autovacuum_count "
                        + "FROM pg_stat_user_tables "
                        + "WHERE relname IN ('" + String.join("', '", HOT_TABLES) + "') ORDER BY relname");
        for (String line : sizes.lines().toList()) {
            String[] f = line.split("\\|");
            tables.put(f[0], new Table(Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])));
        }
        long waiting = Long.parseLong(BenchDatabase.query("SELECT count(*) FROM dispatch_groups"));
        Map<String, Integer> connections = new LinkedHashMap<>();
        String activity = BenchDatabase.query(
                "SELECT COALESCE(NULLIF(application_name, ''), '-'), count(*) FROM pg_stat_activity "
                        + "WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 1");
        for (String line : activity.lines().toList()) {
            String[] f = line.split("\\|");
            connections.put(f[0], Integer.parseInt(f[1]));
        }
        return new State(load, heaps, tables, waiting, connections);
    }

    /** The heap in use right after a full GC (jcmd GC.run, then GC.heap_info), in bytes; -1 when unreadable. */
    private static long heapAfterGc(ProcessHandle jvm) {
        try {
            String pid = String.valueOf(jvm.pid());
            RatioBench.execute(List.of("jcmd", pid, "GC.run"), Map.of());
            Matcher used = USED.matcher(RatioBench.execute(List.of("jcmd", pid, "GC.heap_info"), Map.of()));
            long kilobytes = 0;
            boolean found = false;
            while (used.find()) {
                kilobytes += Long.parseLong(used.group(1));
                found = true;
            }
            return found ? kilobytes * 1024 : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    /** "messages 12.30 MB 456 dead 7 vacuums | ..." for the tables of {@code state}. */
    static String describeTables(State state) {
        List<String> parts = new ArrayList<>();
        for (Entry<String, Table> table : state.tables().entrySet()) {
            parts.add(String.format(
                    Locale.ROOT,
                    "%s %.2f MB %d dead %d vacuums",
                    table.getKey(),
                    table.getValue().bytes() / 1048576.0,
                    table.getValue().dead(),
                    table.getValue().vacuums()));
        }
        return String.join(" | ", parts);
    }
}
