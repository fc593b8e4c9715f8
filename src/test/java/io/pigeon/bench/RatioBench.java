package io.pigeon.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pigeon against its database's own limit and against its peers, in one run: for each client count, the full cycle
 * (post 10, claim 10, delete those 10 by ids) first as SQL through {@code pgbench} — Pigeon's own statements, taken
 * from the stores' constants, so they cannot drift ({@code bench.ceiling}, true) — then as HTTP through {@code wrk}
 * ({@code src/test/bench/wrk-cycle.lua}), for v1 and v2, back to back, then the peers ({@link PeerCycles}); prints
 * messages/s, the ratio HTTP/SQL, and what each run cost ({@link RunMeter}: CPU per 1,000 messages by process, WAL
 * bytes per message, commits per request). Then the cycle at half of the best HTTP rate, paced, with p50/p90/p99/max
 * per request type, and last the summary tables ({@link RatioSummary}). With {@code bench.pin} the load generator and
 * the system under test run on CPUs of their own ({@link SystemUnderTest}).
 *
 * <p>pgbench reaches the database through the usual {@code PG*} environment variables and must reach the
 * one Pigeon uses. Settings: {@code bench.layout} {@code shared} (all clients on one queue: competing
 * consumers, the default) or {@code per-client} (a queue each), {@code bench.apis} (v1,v2),
 * {@code bench.rounds} (1; with more, each figure is the median), {@code bench.half-load} (true),
 * {@code bench.warmup} (seconds of unmeasured HTTP cycle per API first, 15).
 */
final class RatioBench {

    private static final Path WRK_SCRIPT = Path.of("src/test/bench/wrk-cycle.lua");
    private static final int HALF_LOAD_CONNECTIONS = 4;
    /** Pigeon's hot tables vacuumed between runs, on the database psql's environment names. */
    private static final List<String> VACUUM_PIGEON = List.of("psql", "-q", "-c", "VACUUM messages, claims, queues");

    private final String url;
    private final int seconds;
    private final String layout;
    private final HttpClient http = HttpClient.newHttpClient();
    private final Optional<ProcessHandle> pigeon;
    private final RunMeter meter;
    /** psql's environment naming this Pigeon's database (empty: the one PG* names). */
    private final Map<String, String> database;

    private RatioBench(
            String url,
            int seconds,
            String layout,
            Optional<ProcessHandle> pigeon,
            RunMeter meter,
            Map<String, String> database) {
        this.url = url;
        this.seconds = seconds;
        this.layout = layout;
        this.pigeon = pigeon;
        this.meter = meter;
        this.database = database;
    }

    /** The HTTP cycle against the Pigeon at {@code url} alone, measured where it runs, not pinned (the soak's). */
    static RatioBench unpinned(String url, int seconds, String layout) throws Exception {
        Optional<ProcessHandle> pigeon = SystemUnderTest.findJvm("", url);
        return new RatioBench(
                url, seconds, layout, pigeon, new RunMeter(SystemUnderTest.find(false, List.of(pigeon))), Map.of());
    }

    /** The same Pigeon with runs of {@code runSeconds}. */
    private RatioBench lasting(int runSeconds) {
        return new RatioBench(url, runSeconds, layout, pigeon, meter, database);
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
                Map<String, List<Run>> sqlRuns = new LinkedHashMap<>();
                Map<String, List<Run>> httpRuns = new LinkedHashMap<>();
                List<Run> minimalRuns = new ArrayList<>();
                List<Run> pgmqRuns = new ArrayList<>();
                Map<String, List<Run>> beforeRuns = new LinkedHashMap<>();
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
                    Run http = median(httpRuns.get(api));
                    if (before.isPresent()) {
                        Run earlier = median(beforeRuns.get(api));
                        System.out.printf(
                                Locale.ROOT,
                                "%7d %4s %10s %10.0f %6s   before (bench.before-url)%n",
                                clients,
                                api,
                                "",
                                earlier.messagesPerSecond,
                                "");
                        earlier.latencies.forEach(line -> System.out.println("      before " + line));
                        System.out.println("      before " + earlier.httpCost());
                    }
                    http.latencies.forEach(line -> System.out.println("      " + line));
                    bestRequestRate.merge(api, http.requestsPerSecond, Math::max);
                    Optional<Run> sql = ceiling ? Optional.of(median(sqlRuns.get(api))) : Optional.empty();
                    System.out.printf(
                            Locale.ROOT,
                            "%7d %4s %10s %10.0f %6s%n",
                            clients,
                            api,
                            sql.map(s -> String.format(Locale.ROOT, "%.0f", s.messagesPerSecond))
                                    .orElse("-"),
                            http.messagesPerSecond,
                            sql.map(s -> String.format(
                                            Locale.ROOT, "%.2f", http.messagesPerSecond / s.messagesPerSecond))
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
                    Run paced = bench.http(best.getKey(), HALF_LOAD_CONNECTIONS, offered / HALF_LOAD_CONNECTIONS);
                    System.out.printf(
                            Locale.ROOT,
                            "%s at half of its best rate: %.0f requests/s offered by %d paced connections, "
                                    + "%.0f answered (%.0f msg/s); latency ms p50/p90/p99/max:%n",
                            best.getKey(),
                            offered,
                            HALF_LOAD_CONNECTIONS,
                            paced.requestsPerSecond,
                            paced.messagesPerSecond);
                    paced.latencies.forEach(line -> System.out.println("    " + line));
                }
            }
        }
        summary.print(lastApi);
    }

    private static void printPeer(String peer, int clients, List<Run> runs) {
        if (!runs.isEmpty()) {
            Run run = median(runs);
            System.out.printf(
                    Locale.ROOT,
                    "%7d %-7s %10.0f msg/s; %s%n",
                    clients,
                    peer,
                    run.messagesPerSecond,
                    run.pgbenchCost());
        }
    }

    /** VACUUM of Pigeon's hot tables (and the peers'), then a second's rest. */
    private static void settle(Optional<PeerCycles> peers) throws Exception {
        // The Pigeon of bench.before-url may run on a database of its own (its schema as it was): vacuumed alike.
        String beforeDatabase = System.getProperty("bench.before-database", "");
        execute(VACUUM_PIGEON, Map.of());
        if (!beforeDatabase.isBlank()) {
            execute(VACUUM_PIGEON, Map.of("PGDATABASE", beforeDatabase));
        }
        if (peers.isPresent()) {
            peers.get().vacuum();
        }
        Thread.sleep(1000);
    }

    /**
     * A pgbench run of a peer's {@code script} (its queue set by the layout) with the benchmark's ten bodies, on the
     * database {@code environment} names, with what it cost.
     */
    Run pgbench(Path script, int clients, Map<String, String> environment) throws Exception {
        Path bound = Files.createTempFile("pigeon-peer", ".sql");
        try {
            String queueOfClient = layout.equals("per-client") ? ":client_id + 1" : "1";
            Files.writeString(bound, "\\set queue " + queueOfClient + "\n" + Files.readString(script));
            RunMeter.Started started = meter.start(Optional.empty(), environment);
            String output = execute(
                    meter.generator(List.of(
                            "pgbench",
                            "-n",
                            "-M",
                            "prepared",
                            "-c",
                            String.valueOf(clients),
                            "-j",
                            String.valueOf(clients),
                            "-T",
                            String.valueOf(seconds),
                            "-f",
                            bound.toString(),
                            "-D",
                            "bodies=" + PigeonCycleScript.variables("v2", "").get("bodies"))),
                    environment);
            RunMeter.Cost cost = started.stop();
            if (output.contains("ERROR")) {
                throw new IllegalStateException("pgbench failed:\n" + output);
            }
            // As for Pigeon's own statements: 10 messages through the queue per transaction.
            return pgbenchRun(output, cost);
        } finally {
            Files.deleteIfExists(bound);
        }
    }

    /** A pgbench run's figures: each transaction is one cycle of 10 messages, three statements. */
    private static Run pgbenchRun(String output, RunMeter.Cost cost) {
        Matcher tps = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)")
                .matcher(output);
        Matcher transactions = Pattern.compile("number of transactions actually processed: (\\d+)")
                .matcher(output);
        if (!tps.find() || !transactions.find()) {
            throw new IllegalStateException("pgbench printed no result:\n" + output);
        }
        // Each transaction posts 10 and claims and deletes up to 10. On a shared queue a claim can get fewer
        // (others hold them), but what one transaction leaves the next takes: the backlog stays small, so 10 per
        // transaction is what went through the queue.
        long cycles = Long.parseLong(transactions.group(1));
        double transactionsPerSecond = Double.parseDouble(tps.group(1));
        return new Run(transactionsPerSecond * 10, transactionsPerSecond * 3, cycles * 10, cycles, cost, List.of());
    }

    /**
     * What one load run measured: {@code units} are HTTP requests (wrk) or pgbench transactions (one cycle each),
     * what commits are counted per.
     */
    record Run(
            double messagesPerSecond,
            double requestsPerSecond,
            long messages,
            long units,
            RunMeter.Cost cost,
            List<String> latencies) {

        String httpCost() {
            return cost.describe(messages, units, "request", "wrk");
        }

        String pgbenchCost() {
            return cost.describe(messages, units, "pgbench transaction", "pgbench");
        }
    }

    private static Run median(List<Run> runs) {
        List<Run> sorted = runs.stream()
                .sorted((a, b) -> Double.compare(a.messagesPerSecond, b.messagesPerSecond))
                .toList();
        return sorted.get(sorted.size() / 2);
    }

    // ---- SQL: Pigeon's statements through pgbench ----

    private Run sql(String api, int clients) throws Exception {
        String project = "bench-sql-" + UUID.randomUUID();
        createQueues(project, clients);
        Path script = Files.createTempFile("pigeon-cycle", ".sql");
        try {
            Files.writeString(script, PigeonCycleScript.script(api, layout));
            List<String> command = new ArrayList<>(List.of(
                    "pgbench",
                    "-n",
                    "-M",
                    "prepared",
                    "-c",
                    String.valueOf(clients),
                    "-j",
                    String.valueOf(clients),
                    "-T",
                    String.valueOf(seconds),
                    "-f",
                    script.toString()));
            PigeonCycleScript.variables(api, project)
                    .forEach((name, value) -> command.addAll(List.of("-D", name + "=" + value)));
            // Pigeon's JVM takes no part: PostgreSQL and pgbench only.
            RunMeter.Started started = meter.start(Optional.empty(), database);
            Map<String, String> environment = new LinkedHashMap<>(database);
            environment.put("PGOPTIONS", PigeonCycleScript.sessionSettings());
            String output = execute(meter.generator(command), environment);
            return pgbenchRun(output, started.stop());
        } finally {
            Files.deleteIfExists(script);
            deleteQueues(project, clients);
        }
    }

    // ---- HTTP: the same cycle through Pigeon, driven by wrk ----

    Run http(String api, int connections, double ratePerConnection) throws Exception {
        String project = "bench-http-" + UUID.randomUUID();
        try {
            Map<String, String> environment = Map.of(
                    "BENCH_API",
                    api,
                    "BENCH_LAYOUT",
                    layout,
                    "BENCH_PROJECT",
                    project,
                    "BENCH_RATE",
                    String.format(Locale.ROOT, "%.3f", ratePerConnection));
            Map<String, Double> statementsBefore = StatementSharing.read(http, url);
            RunMeter.Started started = meter.start(pigeon, database);
            String output = execute(
                    meter.generator(List.of(
                            "wrk",
                            "-t" + connections,
                            "-c" + connections,
                            "-d" + seconds + "s",
                            "--timeout",
                            "10s",
                            "-s",
                            WRK_SCRIPT.toString(),
                            url)),
                    environment);
            RunMeter.Cost cost = started.stop();
            String shared = StatementSharing.describe(statementsBefore, StatementSharing.read(http, url));
            if (output.contains("Non-2xx") || output.contains("Socket errors")) {
                throw new IllegalStateException("wrk saw failed requests:\n" + output);
            }
            Matcher moved = Pattern.compile("BENCH messages (\\d+)").matcher(output);
            Matcher rate = Pattern.compile("Requests/sec:\\s+([0-9.]+)").matcher(output);
            Matcher requests = Pattern.compile("(\\d+) requests in ").matcher(output);
            if (!moved.find() || !rate.find() || !requests.find()) {
                throw new IllegalStateException("wrk printed no result:\n" + output);
            }
            List<String> latencies = output.lines()
                    .filter(l -> l.matches("BENCH (post|claim|delete) .*"))
                    .map(l -> {
                        String[] f = l.split(" ");
                        return String.format(
                                Locale.ROOT, "%-6s %s/%s/%s/%s (%s requests)", f[1], f[3], f[4], f[5], f[6], f[2]);
                    })
                    .toList();
            long messages = Long.parseLong(moved.group(1));
            if (!shared.isEmpty()) {
                System.out.printf(
                        Locale.ROOT, "    %s %d clients, requests per statement: %s%n", api, connections, shared);
            }
            return new Run(
                    messages / (double) seconds,
                    Double.parseDouble(rate.group(1)),
                    messages,
                    Long.parseLong(requests.group(1)),
                    cost,
                    latencies);
        } finally {
            deleteQueues(project, connections);
        }
    }

    // ---- helpers ----

    /** How many queues a run with {@code clients} clients uses: one shared, or one each. */
    private int queueCount(int clients) {
        return layout.equals("shared") ? 1 : clients;
    }

    private void createQueues(String project, int clients) throws Exception {
        for (int queue = 1; queue <= queueCount(clients); queue++) {
            send("PUT", project, queue);
        }
    }

    private void deleteQueues(String project, int clients) throws Exception {
        for (int queue = 1; queue <= queueCount(clients); queue++) {
            send("DELETE", project, queue);
        }
    }

    private void send(String method, String project, int queue) throws Exception {
        HttpResponse<Void> response = http.send(
                HttpRequest.newBuilder(URI.create(url + "/v1/queues/" + queue))
                        .header("X-Project-Id", project)
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        if (response.statusCode() >= 300) {
            throw new IllegalStateException(method + " queue " + queue + " answered " + response.statusCode());
        }
    }

    static String execute(List<String> command, Map<String, String> environment)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException(command.get(0) + " failed:\n" + output);
        }
        return output;
    }
}
