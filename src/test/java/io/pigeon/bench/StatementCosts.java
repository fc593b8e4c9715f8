package io.pigeon.bench;

import java.util.List;

/**
 * What each contestant's statements cost inside PostgreSQL's executor over a whole ratio run, from
 * pg_stat_statements (when the server loads it): calls, execution and planning time, buffers and WAL records per call.
 * Unlike messages/s these figures barely move with the machine's noise, so they say where a per-core gap comes from:
 * the statements themselves, or what surrounds them (round trips, commits, the JVM).
 */
final class StatementCosts {

    private static final String RESET = "SELECT pg_stat_statements_reset()";

    /** Statements run at least this often: the cycle's own, not the set-up or the sweeper's. */
    private static final int MINIMUM_CALLS = 1000;

    private final boolean available;

    private StatementCosts(boolean available) {
        this.available = available;
    }

    /** Starts counting afresh, or does nothing (and says so) when pg_stat_statements is not there. */
    static StatementCosts start() throws Exception {
        boolean available = BenchDatabase.statementStatistics();
        if (available) {
            BenchDatabase.query(RESET);
        } else {
            System.out.println("pg_stat_statements is not loaded: no per-statement costs "
                    + "(start the server with shared_preload_libraries=pg_stat_statements and CREATE EXTENSION it)");
        }
        return new StatementCosts(available);
    }

    /** Calls, execution ms and rows (as pg_stat_statements counts them) of some statements, summed. */
    record Totals(long calls, double execMillis, long rows) {

        Totals minus(Totals earlier) {
            return new Totals(calls - earlier.calls, execMillis - earlier.execMillis, rows - earlier.rows);
        }
    }

    /**
     * The totals so far of {@code database}'s statements whose text is {@code LIKE} {@code pattern} (zeros when
     * pg_stat_statements is not there): taken before and after a run, their difference is that run's.
     */
    Totals totals(String database, String pattern) throws Exception {
        if (!available) {
            return new Totals(0, 0, 0);
        }
        String[] values = BenchDatabase.query(
                        "SELECT coalesce(sum(s.calls), 0) || ' ' || coalesce(sum(s.total_exec_time),"
                                + " 0) || ' ' || coalesce(sum(s.rows), 0) FROM pg_stat_statements s JOIN pg_database d"
                                + " ON d.oid = s.dbid WHERE d.datname = '" + database + "' AND s.query LIKE '" + pattern
                                + "'")
                .split(" ");
        return new Totals(Long.parseLong(values[0]), Double.parseDouble(values[1]), Long.parseLong(values[2]));
    }

    /** The table of the cycle's statements on each of {@code databases}, in markdown. */
    void print(List<String> databases) throws Exception {
        if (!available) {
            return;
        }
        System.out.printf("%nStatements inside PostgreSQL (pg_stat_statements, whole run; per call):%n%n");
        System.out.println("| database | calls | exec ms | plan ms | buffers | WAL records | WAL bytes | statement |");
        System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- |");
        String names =
                String.join(",", databases.stream().map(d -> "'" + d + "'").toList());
        String rows = BenchDatabase.query("SELECT concat_ws(' | ', d.datname, s.calls,"
                + " round((s.total_exec_time / s.calls)::numeric, 3), round((s.total_plan_time / s.calls)::numeric, 3),"
                + " (s.shared_blks_hit + s.shared_blks_read) / s.calls, round(s.wal_records::numeric / s.calls, 1),"
                + " round(s.wal_bytes / s.calls), left(regexp_replace(s.query, '\\s+', ' ', 'g'), 60))"
                + " FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid"
                + " WHERE d.datname IN (" + names + ") AND s.calls >= " + MINIMUM_CALLS
                + " ORDER BY d.datname, s.total_exec_time DESC");
        rows.lines()
                .forEach(
                        row -> System.out.println("| " + row.replace("|", "\\|").replace(" \\| ", " | ") + " |"));
    }
}
