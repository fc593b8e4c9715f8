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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Pigeon under the ratio benchmark ({@link RatioRun}): the full cycle (post 10, claim 10, delete those 10 by ids)
 * through it over HTTP with {@code wrk} ({@code src/test/bench/wrk-cycle.lua}), and as SQL through {@code pgbench} —
 * Pigeon's own statements ({@link PigeonCycleScript}), its database's limit — and the peers' scripts on the same
 * layout; each run with what it cost ({@link RunMeter}).
 */
final class RatioBench {

    private static final Path WRK_SCRIPT = Path.of("src/test/bench/wrk-cycle.lua");

    private final String url;
    private final int seconds;
    private final String layout;
    private final HttpClient http = HttpClient.newHttpClient();
    private final Optional<ProcessHandle> pigeon;
    private final RunMeter meter;
    /** psql's environment naming this Pigeon's database (empty: the one PG* names). */
    private final Map<String, String> database;
    /** More of wrk-cycle.lua's settings for the HTTP runs (BENCH_GROUPS, BENCH_ORDERING ...), beyond API and layout. */
    private final Map<String, String> script;

    RatioBench(
            String url,
            int seconds,
            String layout,
            Optional<ProcessHandle> pigeon,
            RunMeter meter,
            Map<String, String> database) {
        this(url, seconds, layout, pigeon, meter, database, Map.of());
    }

    private RatioBench(
            String url,
            int seconds,
            String layout,
            Optional<ProcessHandle> pigeon,
            RunMeter meter,
            Map<String, String> database,
            Map<String, String> script) {
        this.url = url;
        this.seconds = seconds;
        this.layout = layout;
        this.pigeon = pigeon;
        this.meter = meter;
        this.database = database;
        this.script = script;
    }

    /** The HTTP cycle against the Pigeon at {@code url} alone, measured where it runs, not pinned (the soak's). */
    static RatioBench unpinned(String url, int seconds, String layout) throws Exception {
        Optional<ProcessHandle> pigeon = SystemUnderTest.findJvm("", url);
        return new RatioBench(
                url, seconds, layout, pigeon, new RunMeter(SystemUnderTest.find(false, List.of(pigeon))), Map.of());
    }

    /** The same Pigeon with runs of {@code runSeconds}. */
    RatioBench lasting(int runSeconds) {
        return new RatioBench(url, runSeconds, layout, pigeon, meter, database, script);
    }

    /** The same Pigeon with wrk-cycle.lua's {@code settings} added to its HTTP runs (e.g. BENCH_GROUPS). */
    RatioBench scripted(Map<String, String> settings) {
        return new RatioBench(url, seconds, layout, pigeon, meter, database, settings);
    }

    /**
     * A pgbench run of a peer's {@code script} (its queue set by the layout) with the benchmark's ten bodies, on the
     * database {@code environment} names, with what it cost.
     */
    Run pgbench(Path script, int clients, Map<String, String> environment) throws Exception {
        return pgbench(script, clients, environment, Map.of());
    }

    /** {@link #pgbench(Path, int, Map)} with more pgbench variables ({@code -D name=value}) for the script. */
    Run pgbench(Path script, int clients, Map<String, String> environment, Map<String, String> variables)
            throws Exception {
        Path bound = Files.createTempFile("pigeon-peer", ".sql");
        try {
            String queueOfClient = layout.equals("per-client") ? ":client_id + 1" : "1";
            Files.writeString(bound, "\\set queue " + queueOfClient + "\n" + Files.readString(script));
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
                    bound.toString(),
                    "-D",
                    "bodies=" + PigeonCycleScript.variables("v2", "").get("bodies")));
            variables.forEach((name, value) -> command.addAll(List.of("-D", name + "=" + value)));
            RunMeter.Started started = meter.start(Optional.empty(), environment);
            String output = execute(meter.generator(command), environment);
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

    // ---- SQL: Pigeon's statements through pgbench ----

    Run sql(String api, int clients) throws Exception {
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
            Map<String, String> environment = new LinkedHashMap<>(script);
            environment.putAll(Map.of(
                    "BENCH_API",
                    api,
                    "BENCH_LAYOUT",
                    layout,
                    "BENCH_PROJECT",
                    project,
                    "BENCH_RATE",
                    String.format(Locale.ROOT, "%.3f", ratePerConnection)));
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
