package io.pigeon.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What one run of the ratio benchmark cost the system under test, beyond its rate: CPU split per process, WAL written
 * and transactions committed. Throughput on a shared or noisy machine says little; these per-message costs say what
 * a change saved. The counters are read through psql outside the CPU window, so that its own work is not counted.
 */
final class RunMeter {

    /**
     * PostgreSQL flushes a backend's counters to pg_stat_database when it goes idle, at most once a second: a
     * connection that stays open (Pigeon's pool) reports its last commits up to a second after the run.
     */
    private static final long STATS_FLUSH_MILLIS = 1_500;

    private final SystemUnderTest system;

    RunMeter(SystemUnderTest system) {
        this.system = system;
    }

    /** The load generator's command, on its own CPU when pinned. */
    List<String> generator(List<String> command) {
        return system.generator(command);
    }

    /**
     * A run about to start: re-pins the system under test (backends and threads started since), reads the counters of
     * the database that {@code database} (psql's environment, e.g. PGDATABASE) names, then the CPU.
     */
    Started start(Optional<ProcessHandle> jvm, Map<String, String> database) throws Exception {
        system.pin();
        Counters counters = Counters.read(database);
        return new Started(jvm, database, counters, system.sample(jvm));
    }

    /** A run under way: {@link #stop()} right after it ends. */
    final class Started {
        private final Optional<ProcessHandle> jvm;
        private final Map<String, String> database;
        private final Counters counters;
        private final SystemUnderTest.Cpu cpu;

        private Started(
                Optional<ProcessHandle> jvm, Map<String, String> database, Counters counters, SystemUnderTest.Cpu cpu) {
            this.jvm = jvm;
            this.database = database;
            this.counters = counters;
            this.cpu = cpu;
        }

        Cost stop() throws Exception {
            SystemUnderTest.Cpu used = system.sample(jvm).minus(cpu);
            Thread.sleep(STATS_FLUSH_MILLIS);
            Counters after = Counters.read(database);
            return new Cost(
                    used,
                    after.walPosition - counters.walPosition,
                    after.transactions - counters.transactions,
                    jvm.isPresent());
        }
    }

    /** The cluster's WAL position (bytes) and one database's commits plus rollbacks. */
    private record Counters(long walPosition, long transactions) {

        static Counters read(Map<String, String> database) throws Exception {
            String[] values = RatioBench.execute(
                            List.of(
                                    "psql",
                                    "-Atq",
                                    "-F",
                                    " ",
                                    "-c",
                                    "SELECT (pg_current_wal_lsn() - '0/0')::bigint, xact_commit + xact_rollback "
                                            + "FROM pg_stat_database WHERE datname = current_database()"),
                            database)
                    .trim()
                    .split(" ");
            return new Counters(Long.parseLong(values[0]), Long.parseLong(values[1]));
        }
    }

    /**
     * One run's cost: CPU ticks per process, WAL bytes (the whole cluster's: background work the run caused counts),
     * and transactions of the run's database (its background jobs' too), {@code withJvm} when a JVM is part of it.
     */
    record Cost(SystemUnderTest.Cpu cpu, long walBytes, long transactions, boolean withJvm) {

        double postgresPerThousand(long messages) {
            return SystemUnderTest.Cpu.perThousand(cpu.postgres(), messages);
        }

        double jvmPerThousand(long messages) {
            return withJvm ? SystemUnderTest.Cpu.perThousand(cpu.jvm(), messages) : 0;
        }

        /** The system under test's CPU ms per 1,000 messages: PostgreSQL, plus the JVM when there is one. */
        double systemPerThousand(long messages) {
            return postgresPerThousand(messages) + jvmPerThousand(messages);
        }

        double walPerMessage(long messages) {
            return messages == 0 ? Double.NaN : walBytes / (double) messages;
        }

        double transactionsPer(long units) {
            return units == 0 ? Double.NaN : transactions / (double) units;
        }

        /**
         * "CPU ms/1,000 msg: postgres 120 + pigeon 90 = 210 (wrk 9); WAL 963 B/msg; 1.01 commits/request" for
         * {@code units} requests or transactions ({@code unit} names them) and the load generator {@code generator}.
         */
        String describe(long messages, long units, String unit, String generator) {
            return String.format(
                    Locale.ROOT,
                    "CPU ms/1,000 msg: postgres %.0f%s (%s %.0f); WAL %.0f B/msg; %.2f commits/%s",
                    postgresPerThousand(messages),
                    withJvm
                            ? String.format(
                                    Locale.ROOT,
                                    " + pigeon %.0f = %.0f",
                                    jvmPerThousand(messages),
                                    systemPerThousand(messages))
                            : "",
                    generator,
                    SystemUnderTest.Cpu.perThousand(cpu.generator(), messages),
                    walPerMessage(messages),
                    transactionsPer(units),
                    unit);
        }
    }
}
