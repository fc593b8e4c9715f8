package io.pigeon.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The ratio benchmark: Pigeon against its database's own limit and against its peers, in one run. For each layout and
 * client count, rounds that run every contestant in turn — Pigeon's statements through {@code pgbench}
 * ({@code bench.ceiling}, true), Pigeon over HTTP, the before build ({@code bench.before-url}), the minimal cycle and
 * PGMQ ({@link PeerCycles}) — each after a VACUUM of everyone's tables; prints each one's messages/s with what it cost
 * (CPU per 1,000 messages by process, WAL bytes per message, commits per request), then the cycle at half of the best
 * HTTP rate, paced, with p50/p90/p99/max per request type, and last the summary tables ({@link RatioSummary}). With
 * {@code bench.pin} the load generator and the system under test run on CPUs of their own ({@link SystemUnderTest}).
 *
 * <p>pgbench reaches the database through the usual {@code PG*} environment variables and must reach the
 * one Pigeon uses. Settings: {@code bench.layout} {@code shared} (all clients on one queue: competing
 * consumers, the default) or {@code per-client} (a queue each), {@code bench.apis} (v1,v2),
 * {@code bench.rounds} (1; with more, each figure is the median), {@code bench.half-load} (true),
 * {@code bench.warmup} (seconds of unmeasured HTTP cycle per API first, 15).
 */
final class RatioRun {

    private static final int HALF_LOAD_CONNECTIONS = 4;
    /** Pigeon's hot tables vacuumed between runs, on the database psql's environment names. */
    private static final List<String> VACUUM_PIGEON = List.of("psql", "-q", "-c", "VACUUM messages, claims, queues");

    private RatioRun() {}

    static void run(String url, int seconds, int[] clientCounts) throws Exception {
        String beforeUrl = System.getProperty("bench.before-url", "").trim();
        Optional<ProcessHandle> pigeon = SystemUnderTest.findJvm(System.getProperty("bench.pigeon.pid", ""), url);
        Optional<ProcessHandle> beforePigeon = beforeUrl.isBlank()
                ? Optional.empty()
                : SystemUnderTest.findJvm(System.getProperty("bench.before-pid", ""), beforeUrl);
        SystemUnderTest system = SystemUnderTest.find(
                Boolean.parseBoolean(System.getProperty("bench.pin", "false")),
                beforeUrl.isBlank() ? List.of(pigeon) : List.of(pigeon, beforePigeon));
        try {
            System.out.println(system.describe());
            run(url, seconds, clientCounts, pigeon, beforePigeon, new RunMeter(system));
        } finally {
            system.release();
        }
    }

    private static void run(
            String url,
            int seconds,
            int[] clientCounts,
            Optional<ProcessHandle> pigeon,
            Optional<ProcessHandle> beforePigeon,
            RunMeter meter)
            throws Exception {
        List<String> layouts = Arrays.stream(
                        System.getProperty("bench.layout", "shared").split(","))
                .map(String::trim)
                .toList();
        if (layouts.stream().anyMatch(layout -> !layout.equals("shared") && !layout.equals("per-client"))) {
            throw new IllegalArgumentException("bench.layout is shared, per-client or both (shared,per-client)");
        }
        List<String> apis = Arrays.stream(
                        System.getProperty("bench.apis", "v1,v2").split(","))
                .map(String::trim)
                .toList();
        String lastApi = apis.get(apis.size() - 1);
        int rounds = Integer.parseInt(System.getProperty("bench.rounds", "1"));
        // Pigeon's own statements through pgbench: its database's limit. Off to shorten a run.
        boolean ceiling = Boolean.parseBoolean(System.getProperty("bench.ceiling", "true"));
        Optional<PeerCycles> peers = Boolean.parseBoolean(System.getProperty("bench.peers", "true"))
                ? Optional.of(
                        PeerCycles.prepare(Arrays.stream(clientCounts).max().orElse(16)))
                : Optional.empty();
        RatioSummary summary =
                new RatioSummary(!System.getProperty("bench.before-url", "").isBlank());
        StatementCosts statements = StatementCosts.start();
        for (String layout : layouts) {
            RatioBench bench = new RatioBench(url, seconds, layout, pigeon, meter, Map.of());
            System.out.printf(
                    Locale.ROOT,
                    "Full cycle (post 10, claim 10, delete 10), %sHTTP through wrk; "
                            + "layout %s, %d s per run, %d round(s)%s%n",
                    ceiling ? "SQL through pgbench vs " : "",
                    layout,
                    seconds,
                    rounds,
                    pigeon.map(p -> ", Pigeon pid " + p.pid())
                            .orElse(", Pigeon's process not found here (no JVM CPU)"));
            System.out.printf(
                    "%7s %4s %10s %10s %6s   %s%n",
                    "clients",
                    "api",
                    "SQL msg/s",
                    "HTTP msg/s",
                    "ratio",
                    "then the cost of each run: CPU per 1,000 messages by process, WAL per message, commits");
            // A fresh JVM runs the cycle 35-45 % slower until its JIT has compiled the hot path.
            int warmup = Integer.parseInt(System.getProperty("bench.warmup", "15"));
            Optional<RatioBench> before = before(layout, seconds, beforePigeon, meter);
            for (String api : apis) {
                if (warmup > 0) {
                    bench.lasting(warmup).http(api, 4, 0);
                    if (before.isPresent()) {
                        before.get().lasting(warmup).http(api, 4, 0);
                    }
                }
            }
            Map<String, Double> bestRequestRate = new LinkedHashMap<>();
            for (int clients : clientCounts) {
                // Rounds interleave every contestant, each run after a VACUUM of every contestant's tables, so that
                // none starts behind the dead rows (and the autovacuum) of the run before it.
                Map<String, List<RatioBench.Run>> sqlRuns = new LinkedHashMap<>();
                Map<String, List<RatioBench.Run>> httpRuns = new LinkedHashMap<>();
                List<RatioBench.Run> minimalRuns = new ArrayList<>();
                List<RatioBench.Run> pgmqRuns = new ArrayList<>();
                Map<String, List<RatioBench.Run>> beforeRuns = new LinkedHashMap<>();
                for (int round = 0; round < rounds; round++) {
                    for (String api : apis) {
                        if (ceiling) {
                            settle(peers);
                            sqlRuns.computeIfAbsent(api, a -> new ArrayList<>()).add(bench.sql(api, clients));
                        }
                        settle(peers);
                        httpRuns.computeIfAbsent(api, a -> new ArrayList<>()).add(bench.http(api, clients, 0));
                        if (before.isPresent()) {
                            settle(peers);
                            beforeRuns
                                    .computeIfAbsent(api, a -> new ArrayList<>())
                                    .add(before.get().http(api, clients, 0));
                        }
                    }
                    if (peers.isPresent()) {
                        settle(peers);
                        minimalRuns.add(peers.get().run("minimal", bench, clients));
                        settle(peers);
                        pgmqRuns.add(peers.get().run("pgmq", bench, clients));
                    }
                }
                for (String api : apis) {
                    RatioBench.Run http = median(httpRuns.get(api));
                    if (before.isPresent()) {
                        RatioBench.Run earlier = median(beforeRuns.get(api));
                        System.out.printf(
                                Locale.ROOT,
                                "%7d %4s %10s %10.0f %6s   before (bench.before-url)%n",
                                clients,
                                api,
                                "",
                                earlier.messagesPerSecond(),
                                "");
                        earlier.latencies().forEach(line -> System.out.println("      before " + line));
                        System.out.println("      before " + earlier.httpCost());
                    }
                    http.latencies().forEach(line -> System.out.println("      " + line));
                    bestRequestRate.merge(api, http.requestsPerSecond(), Math::max);
                    Optional<RatioBench.Run> sql = ceiling ? Optional.of(median(sqlRuns.get(api))) : Optional.empty();
                    System.out.printf(
                            Locale.ROOT,
                            "%7d %4s %10s %10.0f %6s%n",
                            clients,
                            api,
                            sql.map(s -> String.format(Locale.ROOT, "%.0f", s.messagesPerSecond()))
                                    .orElse("-"),
                            http.messagesPerSecond(),
                            sql.map(s -> String.format(
                                            Locale.ROOT, "%.2f", http.messagesPerSecond() / s.messagesPerSecond()))
                                    .orElse("-"));
                    System.out.println("      HTTP " + http.httpCost());
                    sql.ifPresent(s -> System.out.println("      SQL  " + s.pgbenchCost()));
                }
                printPeer("minimal", clients, minimalRuns);
                printPeer("PGMQ", clients, pgmqRuns);
                summary.add(
                        layout,
                        clients,
                        minimalRuns,
                        pgmqRuns,
                        httpRuns.get(lastApi),
                        beforeRuns.getOrDefault(lastApi, List.of()));
            }
            if (Boolean.parseBoolean(System.getProperty("bench.half-load", "true"))) {
                for (Map.Entry<String, Double> best : bestRequestRate.entrySet()) {
                    double offered = best.getValue() / 2;
                    RatioBench.Run paced =
                            bench.http(best.getKey(), HALF_LOAD_CONNECTIONS, offered / HALF_LOAD_CONNECTIONS);
                    System.out.printf(
                            Locale.ROOT,
                            "%s at half of its best rate: %.0f requests/s offered by %d paced connections, "
                                    + "%.0f answered (%.0f msg/s); latency ms p50/p90/p99/max:%n",
                            best.getKey(),
                            offered,
                            HALF_LOAD_CONNECTIONS,
                            paced.requestsPerSecond(),
                            paced.messagesPerSecond());
                    paced.latencies().forEach(line -> System.out.println("    " + line));
                }
            }
        }
        summary.print(lastApi);
        List<String> databases = new ArrayList<>(List.of(
                System.getenv().getOrDefault("PGDATABASE", "pigeon"),
                System.getProperty("bench.peers-database", "pigeon_peers")));
        String beforeDatabase = System.getProperty("bench.before-database", "").trim();
        if (!beforeDatabase.isEmpty()) {
            databases.add(beforeDatabase);
        }
        statements.print(databases);
        summary.goal().check();
    }

    private static void printPeer(String peer, int clients, List<RatioBench.Run> runs) {
        if (!runs.isEmpty()) {
            RatioBench.Run run = median(runs);
            System.out.printf(
                    Locale.ROOT,
                    "%7d %-7s %10.0f msg/s; %s%n",
                    clients,
                    peer,
                    run.messagesPerSecond(),
                    run.pgbenchCost());
        }
    }

    /** VACUUM of Pigeon's hot tables (and the peers'), then a second's rest. */
    private static void settle(Optional<PeerCycles> peers) throws Exception {
        // The Pigeon of bench.before-url may run on a database of its own (its schema as it was): vacuumed alike.
        String beforeDatabase = System.getProperty("bench.before-database", "");
        RatioBench.execute(VACUUM_PIGEON, Map.of());
        if (!beforeDatabase.isBlank()) {
            RatioBench.execute(VACUUM_PIGEON, Map.of("PGDATABASE", beforeDatabase));
        }
        if (peers.isPresent()) {
            peers.get().vacuum();
        }
        Thread.sleep(1000);
    }

    /**
     * Another Pigeon to run the same HTTP cycle against in every round, right after this one's (a build from before a
     * change, on another port: {@code bench.before-url}, with its process id as {@code bench.before-pid} when it
     * cannot be found by its port, and its database as {@code bench.before-database} when it is not the one PG*
     * names, so that it is vacuumed and counted alike).
     */
    private static Optional<RatioBench> before(
            String layout, int runSeconds, Optional<ProcessHandle> beforePigeon, RunMeter meter) {
        String beforeUrl = System.getProperty("bench.before-url", "");
        if (beforeUrl.isBlank()) {
            return Optional.empty();
        }
        String beforeDatabase = System.getProperty("bench.before-database", "");
        return Optional.of(new RatioBench(
                beforeUrl.trim(),
                runSeconds,
                layout,
                beforePigeon,
                meter,
                beforeDatabase.isBlank() ? Map.of() : Map.of("PGDATABASE", beforeDatabase.trim())));
    }

    private static RatioBench.Run median(List<RatioBench.Run> runs) {
        List<RatioBench.Run> sorted = runs.stream()
                .sorted((a, b) -> Double.compare(a.messagesPerSecond(), b.messagesPerSecond()))
                .toList();
        return sorted.get(sorted.size() / 2);
    }
}
