package io.pigeon.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Pigeon's database as the benchmarks of flat costs reach it: through {@code psql} and the usual {@code PG*}
 * environment variables (as the ratio benchmark's pgbench does), for setting up rows in bulk, reading the server's
 * counters and explaining a statement.
 */
final class BenchDatabase {

    private BenchDatabase() {}

    /** The unaligned, tuples-only output of {@code sql} (statements separated by ';' run in one psql session). */
    static String query(String sql) throws Exception {
        return RatioBench.execute(List.of("psql", "-Atq", "-v", "ON_ERROR_STOP=1", "-c", sql), Map.of())
                .trim();
    }

    /**
     * The output of each of {@code statements} in turn, in one session with Pigeon's own settings (plan_cache_mode,
     * jit ...), so that plans are Pigeon's.
     */
    static String queryAsPigeon(String... statements) throws Exception {
        List<String> command = new ArrayList<>(List.of("psql", "-Atq", "-v", "ON_ERROR_STOP=1"));
        for (String statement : statements) {
            command.addAll(List.of("-c", statement));
        }
        return RatioBench.execute(command, Map.of("PGOPTIONS", PigeonCycleScript.sessionSettings()))
                .trim();
    }

    /** Transactions ended (commits plus rollbacks) on this database since the server's statistics began. */
    static long transactions() throws Exception {
        return Long.parseLong(
                query("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"));
    }

    /** Whether pg_stat_statements is loaded and installed in this database. */
    static boolean statementStatistics() throws Exception {
        return query("SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'")
                        .equals("1")
                && query("SHOW shared_preload_libraries").contains("pg_stat_statements");
    }
}
