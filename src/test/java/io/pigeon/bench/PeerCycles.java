package io.pigeon.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The peers the ratio benchmark puts beside Pigeon, each run through {@code pgbench} on the same PostgreSQL server, in
 * a database of their own ({@code bench.peers-database}, default {@code pigeon_peers}, created when missing): the
 * minimal hand-written cycle ({@code src/test/bench/minimal-*.sql}) and PGMQ 1.5.1's ({@code bench.pgmq-sql}, default
 * {@code ../shared/peers/pgmq/pgmq.sql}, loaded once; {@code src/test/bench/pgmq-cycle.sql}). Each run starts from
 * empty queues.
 */
final class PeerCycles {

    private static final Path MINIMAL_SCHEMA = Path.of("src/test/bench/minimal-schema.sql");
    private static final Map<String, Path> CYCLES = Map.of(
            "minimal", Path.of("src/test/bench/minimal-cycle.sql"),
            "pgmq", Path.of("src/test/bench/pgmq-cycle.sql"));

    private final String database;
    private final int queues;

    private PeerCycles(String database, int queues) {
        this.database = database;
        this.queues = queues;
    }

    /** The peers' database made ready for up to {@code queues} queues. */
    static PeerCycles prepare(int queues) throws Exception {
        String database = System.getProperty("bench.peers-database", "pigeon_peers");
        Path pgmq = Path.of(System.getProperty("bench.pgmq-sql", "../shared/peers/pgmq/pgmq.sql"));
        if (!Files.exists(pgmq)) {
            throw new IllegalStateException(
                    "PGMQ's SQL is not at " + pgmq + " (set bench.pgmq-sql, or bench.peers=false)");
        }
        PeerCycles peers = new PeerCycles(database, queues);
        if (!psql("postgres", "SELECT 1 FROM pg_database WHERE datname = '" + database + "'")
                .equals("1")) {
            RatioBench.execute(List.of("createdb", database), Map.of());
        }
        if (psql(database, "SELECT count(*) FROM pg_namespace WHERE nspname = 'pgmq'")
                .equals("0")) {
            RatioBench.execute(
                    List.of("psql", "-q", "-v", "ON_ERROR_STOP=1", "-d", database, "-f", pgmq.toString()), Map.of());
        }
        RatioBench.execute(
                List.of("psql", "-q", "-v", "ON_ERROR_STOP=1", "-d", database, "-f", MINIMAL_SCHEMA.toString()),
                Map.of());
        for (int queue = 1; queue <= queues; queue++) {
            psql(database, "SELECT pgmq.create('q" + queue + "')");
        }
        // PGMQ 1.8 and later: the index on headers its documentation recommends for its grouped (FIFO) reads.
        if (psql(database, "SELECT count(*) FROM pg_proc WHERE proname = 'create_fifo_indexes_all'")
                .equals("1")) {
            psql(database, "SELECT pgmq.create_fifo_indexes_all()");
        }
        return peers;
    }

    /** One run of the peer's cycle with {@code clients} clients, from empty queues, with what it cost. */
    RatioBench.Run run(String peer, RatioBench bench, int clients) throws Exception {
        return run(CYCLES.get(peer), bench, clients, Map.of());
    }

    /** One run of a peer's {@code script} with more pgbench {@code variables}, from empty queues. */
    RatioBench.Run run(Path script, RatioBench bench, int clients, Map<String, String> variables) throws Exception {
        empty();
        return bench.pgbench(script, clients, Map.of("PGDATABASE", database), variables);
    }

    /** The messages left in PGMQ's queue {@code queue} (posted and not deleted, read or not). */
    long pgmqMessagesLeft(int queue) throws Exception {
        return Long.parseLong(psql(database, "SELECT count(*) FROM pgmq.q_q" + queue));
    }

    /** VACUUM of the peers' tables (PGMQ's queue tables and the minimal one). */
    void vacuum() throws Exception {
        StringBuilder tables = new StringBuilder("minimal.messages");
        for (int queue = 1; queue <= queues; queue++) {
            tables.append(", pgmq.q_q").append(queue);
        }
        RatioBench.execute(List.of("psql", "-q", "-d", database, "-c", "VACUUM " + tables), Map.of());
    }

    /** The peers' database. */
    String database() {
        return database;
    }

    /** Every peer queue emptied. */
    void empty() throws Exception {
        StringBuilder sql = new StringBuilder("TRUNCATE minimal.messages;");
        for (int queue = 1; queue <= queues; queue++) {
            sql.append(" SELECT pgmq.purge_queue('q").append(queue).append("');");
        }
        psql(database, sql.toString());
    }

    private static String psql(String database, String sql) throws Exception {
        return RatioBench.execute(List.of("psql", "-Atq", "-v", "ON_ERROR_STOP=1", "-d", database, "-c", sql), Map.of())
                .trim();
    }
}
