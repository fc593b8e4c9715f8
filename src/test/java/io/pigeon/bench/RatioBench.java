package io.pigeon.bench;

import io.pigeon.claim.ClaimStatements;
import io.pigeon.message.MessageStatements;
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
import java.util.Properties;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Pigeon against its database's own limit, in one run: for each client count, the full cycle (post 10,
 * claim 10, delete those 10 by ids) first as SQL through {@code pgbench} — Pigeon's own statements, taken
 * from the stores' constants, so they cannot drift — then as HTTP through {@code wrk}
 * ({@code src/test/bench/wrk-cycle.lua}), for v1 and v2, back to back; prints messages/s of both and the
 * ratio HTTP/SQL, and where the CPU went (Pigeon, PostgreSQL, the load generator, in CPU milliseconds per
 * 1,000 messages) when they run on this machine. Then the cycle at half of the best HTTP rate, paced, with
 * p50/p90/p99/max per request type.
 *
 * <p>pgbench reaches the database through the usual {@code PG*} environment variables and must reach the
 * one Pigeon uses. Settings: {@code bench.layout} {@code shared} (all clients on one queue: competing
 * consumers, the default) or {@code per-client} (a queue each), {@code bench.apis} (v1,v2),
 * {@code bench.rounds} (1; with more, each figure is the median), {@code bench.half-load} (true),
 * {@code bench.warmup} (seconds of unmeasured HTTP cycle per API first, 15).
 */
final class RatioBench {

    /** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
    private static final double TICKS_PER_SECOND = 100.0;

    private static final Pattern PARAMETER = Pattern.compile("\\$(\\d+)");
    private static final Path WRK_SCRIPT = Path.of("src/test/bench/wrk-cycle.lua");
    private static final int HALF_LOAD_CONNECTIONS = 4;
    /** Pigeon's hot tables vacuumed between runs, on the database psql's environment names. */
    private static final List<String> VACUUM_PIGEON = List.of("psql", "-q", "-c", "VACUUM messages, claims, queues");

    private final String url;
    private final int seconds;
    private final String layout;
    private final HttpClient http = HttpClient.newHttpClient();
    private final Optional<ProcessHandle> pigeon;

    RatioBench(String url, int seconds, String layout) {
        this(url, seconds, layout, findPigeon());
    }

    private RatioBench(String url, int seconds, String layout, Optional<ProcessHandle> pigeon) {
        this.url = url;
        this.seconds = seconds;
        this.layout = layout;
        this.pigeon = pigeon;
    }

    /**
     * Another Pigeon to run the same HTTP cycle against in every round, right after this one's (a build from before a
     * change, on another port: {@code bench.before-url}, with its process id as {@code bench.before-pid} for its CPU, and
     * its database as {@code bench.before-database} when it is not the one PG* names, so that it is vacuumed alike).
     */
    private Optional<RatioBench> before(int runSeconds) {
        String beforeUrl = System.getProperty("bench.before-url", "");
        if (beforeUrl.isBlank()) {
            return Optional.empty();
        }
        String pid = System.getProperty("bench.before-pid", "");
        return Optional.of(new RatioBench(
                beforeUrl,
                runSeconds,
                layout,
                pid.isBlank() ? Optional.empty() : ProcessHandle.of(Long.parseLong(pid.trim()))));
    }

    static void run(String url, int seconds, int[] clientCounts) throws Exception {
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
        int rounds = Integer.parseInt(System.getProperty("bench.rounds", "1"));
        Optional<PeerCycles> peers = Boolean.parseBoolean(System.getProperty("bench.peers", "true"))
                ? Optional.of(
                        PeerCycles.prepare(Arrays.stream(clientCounts).max().orElse(16)))
                : Optional.empty();
        List<String> peerRows = new ArrayList<>();
        for (String layout : layouts) {
            RatioBench bench = new RatioBench(url, seconds, layout);
            System.out.printf(
                    Locale.ROOT,
                    "Full cycle (post 10, claim 10, delete 10), SQL through pgbench vs HTTP through wrk; "
                            + "layout %s, %d s per run, %d round(s)%s%n",
                    layout,
                    seconds,
                    rounds,
                    bench.pigeon
                            .map(p -> ", Pigeon pid " + p.pid())
                            .orElse(", Pigeon's process not found here (no CPU split)"));
            System.out.printf(
                    "%7s %4s %10s %10s %6s   %s%n",
                    "clients",
                    "api",
                    "SQL msg/s",
                    "HTTP msg/s",
                    "ratio",
                    "CPU ms per 1,000 messages: SQL run (postgres + pgbench) | HTTP run (pigeon + postgres + wrk)");
            // A fresh JVM runs the cycle 35-45 % slower until its JIT has compiled the hot path.
            int warmup = Integer.parseInt(System.getProperty("bench.warmup", "15"));
            Optional<RatioBench> before = bench.before(seconds);
            Optional<RatioBench> beforeWarmup = bench.before(warmup);
            for (String api : apis) {
                if (warmup > 0) {
                    new RatioBench(url, warmup, layout).http(api, 4, 0);
                    if (beforeWarmup.isPresent()) {
                        beforeWarmup.get().http(api, 4, 0);
                    }
                }
            }
            Map<String, Double> bestRequestRate = new LinkedHashMap<>();
            for (int clients : clientCounts) {
                // Rounds interleave every contestant, each run after a VACUUM of every contestant's tables, so that
                // none starts behind the dead rows (and the autovacuum) of the run before it.
                Map<String, List<Run>> sqlRuns = new LinkedHashMap<>();
                Map<String, List<Run>> httpRuns = new LinkedHashMap<>();
                List<Double> minimalRuns = new ArrayList<>();
                List<Double> pgmqRuns = new ArrayList<>();
                Map<String, List<Run>> beforeRuns = new LinkedHashMap<>();
                for (int round = 0; round < rounds; round++) {
                    for (String api : apis) {
                        settle(peers);
                        sqlRuns.computeIfAbsent(api, a -> new ArrayList<>()).add(bench.sql(api, clients));
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
                double lastHttp = 0;
                double lastBefore = 0;
                for (String api : apis) {
                    Run sql = median(sqlRuns.get(api));
                    Run http = median(httpRuns.get(api));
                    lastHttp = http.messagesPerSecond;
                    if (before.isPresent()) {
                        Run earlier = median(beforeRuns.get(api));
                        lastBefore = earlier.messagesPerSecond;
                        System.out.printf(
                                Locale.ROOT,
                                "%7d %4s %10s %10.0f %6s   before (bench.before-url): | %s%n",
                                clients,
                                api,
                                "",
                                earlier.messagesPerSecond,
                                "",
                                earlier.cpu.perThousand(earlier.messages, true));
                        earlier.latencies.forEach(line -> System.out.println("      before " + line));
                    }
                    http.latencies.forEach(line -> System.out.println("      " + line));
                    bestRequestRate.merge(api, http.requestsPerSecond, Math::max);
                    System.out.printf(
                            Locale.ROOT,
                            "%7d %4s %10.0f %10.0f %6.2f   %s | %s%n",
                            clients,
                            api,
                            sql.messagesPerSecond,
                            http.messagesPerSecond,
                            http.messagesPerSecond / sql.messagesPerSecond,
                            sql.cpu.perThousand(sql.messages, false),
                            http.cpu.perThousand(http.messages, true));
                }
                if (peers.isPresent()) {
                    double minimal = minimalRuns.stream().sorted().toList().get(rounds / 2);
                    double pgmq = pgmqRuns.stream().sorted().toList().get(rounds / 2);
                    peerRows.add(String.format(
                            Locale.ROOT,
                            "%-10s %7d %12.0f %10.0f %14.0f %8.2f %8.2f%s",
                            layout,
                            clients,
                            minimal,
                            pgmq,
                            lastHttp,
                            lastHttp / minimal,
                            lastHttp / pgmq,
                            before.isEmpty()
                                    ? ""
                                    : String.format(
                                            Locale.ROOT,
                                            " %14.0f %8.2f %8.2f",
                                            lastBefore,
                                            lastBefore / minimal,
                                            lastBefore / pgmq)));
                }
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
        if (!peerRows.isEmpty()) {
            System.out.printf(
                    "Peers (msg/s; each the median of the rounds, run back to back with Pigeon's):%n%-10s %7s %12s %10s %14s %8s %8s%s%n",
                    "layout",
                    "clients",
                    "minimal SQL",
                    "PGMQ",
                    "Pigeon " + apis.get(apis.size() - 1) + " HTTP",
                    "/minimal",
                    "/PGMQ",
                    System.getProperty("bench.before-url", "").isBlank()
                            ? ""
                            : String.format(" %14s %8s %8s", "before HTTP", "/minimal", "/PGMQ"));
            peerRows.forEach(System.out::println);
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

    /** A pgbench run of {@code script} (its queue set by the layout) with the benchmark's ten bodies; messages/s. */
    double pgbench(Path script, int clients, Map<String, String> environment) throws Exception {
        Path bound = Files.createTempFile("pigeon-peer", ".sql");
        try {
            String queueOfClient = layout.equals("per-client") ? ":client_id + 1" : "1";
            Files.writeString(bound, "\\set queue " + queueOfClient + "\n" + Files.readString(script));
            String output = execute(
                    List.of(
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
                            "bodies=" + variables("v2", "").get("bodies")),
                    environment);
            Matcher tps = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)")
                    .matcher(output);
            if (!tps.find() || output.contains("ERROR")) {
                throw new IllegalStateException("pgbench failed:\n" + output);
            }
            // As for Pigeon's own statements: 10 messages through the queue per transaction.
            return Double.parseDouble(tps.group(1)) * 10;
        } finally {
            Files.deleteIfExists(bound);
        }
    }

    /** What one load run measured. */
    record Run(double messagesPerSecond, double requestsPerSecond, long messages, Cpu cpu, List<String> latencies) {}

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
            Files.writeString(script, pgbenchScript(api));
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
            variables(api, project).forEach((name, value) -> command.addAll(List.of("-D", name + "=" + value)));
            Cpu before = Cpu.sample(pigeon);
            String output = execute(command, Map.of("PGOPTIONS", pigeonSessionSettings()));
            Cpu used = Cpu.sample(pigeon).minus(before);
            Matcher tps = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)")
                    .matcher(output);
            Matcher transactions = Pattern.compile("number of transactions actually processed: (\\d+)")
                    .matcher(output);
            if (!tps.find() || !transactions.find()) {
                throw new IllegalStateException("pgbench printed no result:\n" + output);
            }
            // Each transaction posts 10 and claims and deletes up to 10. On a shared queue a claim can get
            // fewer (others hold them), but what one transaction leaves the next takes: the backlog stays
            // small, so 10 per transaction is what went through the queue.
            long messages = Long.parseLong(transactions.group(1)) * 10;
            double transactionsPerSecond = Double.parseDouble(tps.group(1));
            return new Run(transactionsPerSecond * 10, transactionsPerSecond * 3, messages, used, List.of());
        } finally {
            Files.deleteIfExists(script);
            deleteQueues(project, clients);
        }
    }

    /**
     * The cycle as a pgbench script: the stores' statements with their parameters as pgbench variables. One
     * deviation: pgbench cannot carry the claim's ten rows to the next statement, so the delete reads the
     * claimed ids from the claim's own row (its message_ids), inside the delete statement — two primary-key
     * probes more than Pigeon's delete, which gets the ids from the request.
     */
    /** The quota parameters of the post statements: Pigeon's default limits, and a refusal text. */
    private static final String QUOTA_COUNT = "10000";

    private static final String QUOTA_TEXT = "'quota exceeded'";

    /** The post statements' last parameter: whether mailto: subscribers are sent (off, Pigeon's default). */
    private static final String MAIL_OFF = "false";

    private String pgbenchScript(String api) {
        String queue = ":queue";
        String claimId = "md5(:seed::text)::uuid";
        String post = api.equals("v2")
                ? bind(
                        MessageStatements.POST_CREATING_QUEUE,
                        ":project",
                        queue,
                        ":client",
                        ":ttls",
                        ":delays",
                        ":bodies",
                        ":max_post_size",
                        ":default_ttl",
                        ":document_size",
                        QUOTA_COUNT,
                        QUOTA_TEXT,
                        QUOTA_TEXT,
                        QUOTA_COUNT,
                        QUOTA_TEXT,
                        QUOTA_TEXT,
                        "false",
                        "NULL",
                        "false",
                        QUOTA_TEXT,
                        MAIL_OFF)
                : bind(
                        MessageStatements.POST,
                        ":project",
                        queue,
                        ":client",
                        ":ttls",
                        ":bodies",
                        QUOTA_TEXT,
                        QUOTA_COUNT,
                        QUOTA_TEXT,
                        QUOTA_TEXT,
                        "false",
                        "NULL",
                        "false",
                        QUOTA_TEXT,
                        MAIL_OFF);
        String claim = bind(
                ClaimStatements.CREATE_ONE,
                ":project",
                queue,
                claimId,
                ":limit",
                ":claim_ttl",
                ":claim_grace",
                ":max_ttl");
        String delete = bind(
                MessageStatements.DELETE_BY_IDS,
                ":project",
                queue,
                "(SELECT c.message_ids FROM claims c WHERE c.queue_id = (SELECT id FROM queues WHERE project = :project AND name = "
                        + queue + ") AND c.id = " + claimId + ")");
        String queueOfClient = layout.equals("per-client") ? ":client_id + 1" : "1";
        return "\\set queue " + queueOfClient + "\n"
                + "\\set seed random(1, 9223372036854775807)\n"
                + post + ";\n" + claim + ";\n" + delete + ";\n";
    }

    /** The statement with {@code $n} replaced by the n-th argument. */
    private static String bind(String statement, String... arguments) {
        if (statement.contains(";")) {
            throw new IllegalStateException("pgbench ends a command at ';'");
        }
        Matcher parameter = PARAMETER.matcher(statement);
        StringBuilder bound = new StringBuilder();
        while (parameter.find()) {
            int index = Integer.parseInt(parameter.group(1));
            if (index > arguments.length) {
                throw new IllegalStateException("no argument for $" + index);
            }
            parameter.appendReplacement(bound, Matcher.quoteReplacement(arguments[index - 1]));
        }
        parameter.appendTail(bound);
        return bound.toString();
    }

    /** The values Pigeon would bind for the benchmark's requests, with its default configuration. */
    private static Map<String, String> variables(String api, String project) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("project", project);
        values.put("client", "3381af92-2b9e-11e3-b191-71861300734c");
        values.put(
                "ttls",
                arrayLiteral(IntStream.range(0, 10).mapToObj(i -> "3600").toList(), false));
        values.put(
                "delays",
                arrayLiteral(IntStream.range(0, 10).mapToObj(i -> "NULL").toList(), false));
        // As Pigeon stores a body: Jackson's compact form of what the client sent.
        values.put(
                "bodies",
                arrayLiteral(
                        IntStream.range(0, 10)
                                .mapToObj(i -> "{\"event\":\"bench\",\"n\":" + i + ",\"pad\":\"0123456789abcdef\"}")
                                .toList(),
                        true));
        values.put("max_post_size", "262144");
        values.put("default_ttl", "3600");
        values.put("document_size", String.valueOf(v2Document().getBytes(StandardCharsets.UTF_8).length));
        values.put("limit", "10");
        values.put("claim_ttl", "60");
        values.put("claim_grace", "60");
        values.put("max_ttl", "1209600");
        return values;
    }

    private static String v2Document() {
        return IntStream.range(0, 10)
                .mapToObj(i -> "{\"ttl\": 3600, \"body\": {\"event\": \"bench\", \"n\": " + i
                        + ", \"pad\": \"0123456789abcdef\"}}")
                .collect(Collectors.joining(", ", "{\"messages\": [", "]}"));
    }

    private static String arrayLiteral(List<String> elements, boolean quoted) {
        return elements.stream()
                .map(e -> quoted ? "\"" + e.replace("\\", "\\\\").replace("\"", "\\\"") + "\"" : e)
                .collect(Collectors.joining(",", "{", "}"));
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
            Map<String, Double> statementsBefore = statementRequests();
            Cpu before = Cpu.sample(pigeon);
            String output = execute(
                    List.of(
                            "wrk",
                            "-t" + connections,
                            "-c" + connections,
                            "-d" + seconds + "s",
                            "--timeout",
                            "10s",
                            "-s",
                            WRK_SCRIPT.toString(),
                            url),
                    environment);
            Cpu used = Cpu.sample(pigeon).minus(before);
            String shared = sharedStatements(statementsBefore, statementRequests());
            if (output.contains("Non-2xx") || output.contains("Socket errors")) {
                throw new IllegalStateException("wrk saw failed requests:\n" + output);
            }
            Matcher moved = Pattern.compile("BENCH messages (\\d+)").matcher(output);
            Matcher rate = Pattern.compile("Requests/sec:\\s+([0-9.]+)").matcher(output);
            if (!moved.find() || !rate.find()) {
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
            return new Run(messages / (double) seconds, Double.parseDouble(rate.group(1)), messages, used, latencies);
        } finally {
            deleteQueues(project, connections);
        }
    }

    // ---- helpers ----

    private static final Pattern STATEMENT_REQUESTS =
            Pattern.compile("(?m)^pigeon_statement_requests_(bucket|count|sum)\\{([^}]*)}\\s+([0-9.eE+-]+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    /**
     * Pigeon's histogram of requests per statement (pigeon_statement_requests at /q/metrics) as "kind le" (or
     * "kind count", "kind sum") to its value; empty when Pigeon has none (coalescing predates it, or no metrics).
     */
    private Map<String, Double> statementRequests() {
        Map<String, Double> values = new LinkedHashMap<>();
        try {
            String metrics = http.send(
                            HttpRequest.newBuilder(URI.create(url + "/q/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            Matcher line = STATEMENT_REQUESTS.matcher(metrics);
            while (line.find()) {
                Map<String, String> labels = new LinkedHashMap<>();
                Matcher label = LABEL.matcher(line.group(2));
                while (label.find()) {
                    labels.put(label.group(1), label.group(2));
                }
                String which = line.group(1).equals("bucket") ? labels.get("le") : line.group(1);
                values.put(labels.get("kind") + " " + which, Double.parseDouble(line.group(3)));
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            return Map.of();
        }
        return values;
    }

    /**
     * Per kind, over one run: statements, requests per statement, and the share of statements by how many requests
     * they carried (1, 2, 3-4, 5-8, 9-16, 17-32, more).
     */
    private static String sharedStatements(Map<String, Double> before, Map<String, Double> after) {
        List<String> kinds = new ArrayList<>();
        for (String kind : List.of("post", "claim", "delete")) {
            double count = after.getOrDefault(kind + " count", 0.0) - before.getOrDefault(kind + " count", 0.0);
            if (count <= 0) {
                continue;
            }
            double sum = after.getOrDefault(kind + " sum", 0.0) - before.getOrDefault(kind + " sum", 0.0);
            StringBuilder shares = new StringBuilder();
            double below = 0;
            String[] edges = {"1.0", "2.0", "4.0", "8.0", "16.0", "32.0", "+Inf"};
            String[] names = {"1", "2", "3-4", "5-8", "9-16", "17-32", ">32"};
            for (int i = 0; i < edges.length; i++) {
                double upTo = after.getOrDefault(kind + " " + edges[i], 0.0)
                        - before.getOrDefault(kind + " " + edges[i], 0.0);
                double share = (upTo - below) / count;
                below = upTo;
                if (share >= 0.005) {
                    shares.append(String.format(Locale.ROOT, " %s:%.0f%%", names[i], share * 100));
                }
            }
            kinds.add(String.format(
                    Locale.ROOT,
                    "%s %.0f statements, %.2f each (%s)",
                    kind,
                    count,
                    sum / count,
                    shares.toString().trim()));
        }
        return String.join("; ", kinds);
    }

    /**
     * The session settings of Pigeon's own connections, read from its application.properties, as
     * {@code PGOPTIONS}: pgbench's statements are then planned as they are in Pigeon.
     */
    static String pigeonSessionSettings() throws IOException {
        String prefix = "quarkus.datasource.reactive.additional-properties.";
        Properties properties = new Properties();
        try (var in = Files.newInputStream(Path.of("src/main/resources/application.properties"))) {
            properties.load(in);
        }
        return properties.stringPropertyNames().stream()
                .filter(name -> name.startsWith(prefix) && !name.equals(prefix + "application_name"))
                .sorted()
                .map(name -> "-c " + name.substring(prefix.length()) + "=" + properties.getProperty(name))
                .collect(Collectors.joining(" "));
    }

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

    static Optional<ProcessHandle> findPigeon() {
        String pid = System.getProperty("bench.pigeon.pid", "");
        if (!pid.isBlank()) {
            return ProcessHandle.of(Long.parseLong(pid.trim()));
        }
        long self = ProcessHandle.current().pid();
        return ProcessHandle.allProcesses()
                .filter(p -> p.pid() != self)
                .filter(p -> p.info()
                        .commandLine()
                        .map(c -> c.contains("quarkus-run.jar"))
                        .orElse(false))
                .findFirst();
    }

    /** utime + stime of the process, plus its reaped children's when {@code withChildren} (0 once it is gone). */
    static long ticks(long pid, boolean withChildren) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            // Fields after the command name, which is in parentheses and may contain spaces.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long own = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            return withChildren ? own + Long.parseLong(fields[13]) + Long.parseLong(fields[14]) : own;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * CPU time in clock ticks: Pigeon's process, every PostgreSQL process (plus the exited backends the
     * postmaster has reaped), and this process's finished children — the load generator of the run. With
     * {@code bench.postgres-pid} (a postmaster's pid) only that server's processes count: on a machine that runs other
     * PostgreSQL servers too, theirs would otherwise be counted as Pigeon's database's.
     */
    record Cpu(long pigeon, long postgres, long generator) {

        private static final long ONLY_SERVER =
                Long.parseLong(System.getProperty("bench.postgres-pid", "0").trim());

        static Cpu sample(Optional<ProcessHandle> pigeon) {
            long pigeonTicks = pigeon.map(p -> ticks(p.pid(), false)).orElse(0L);
            long postgresTicks = 0;
            try (var processes = Files.list(Path.of("/proc"))) {
                for (Path process : processes
                        .filter(p -> p.getFileName().toString().matches("\\d+"))
                        .toList()) {
                    try {
                        if (Files.readString(process.resolve("comm")).trim().equals("postgres")) {
                            long pid = Long.parseLong(process.getFileName().toString());
                            Optional<ProcessHandle> parent =
                                    ProcessHandle.of(pid).flatMap(ProcessHandle::parent);
                            boolean postmaster = parent.map(
                                            p -> !readComm(p.pid()).equals("postgres"))
                                    .orElse(true);
                            boolean counted = ONLY_SERVER == 0
                                    || pid == ONLY_SERVER
                                    || parent.map(p -> p.pid() == ONLY_SERVER).orElse(false);
                            if (counted) {
                                postgresTicks += ticks(pid, postmaster);
                            }
                        }
                    } catch (IOException ended) {
                        // the process ended between listing and reading
                    }
                }
            } catch (IOException noProc) {
                return new Cpu(0, 0, 0);
            }
            long generatorTicks = ticks(ProcessHandle.current().pid(), true)
                    - ticks(ProcessHandle.current().pid(), false);
            return new Cpu(pigeonTicks, postgresTicks, generatorTicks);
        }

        Cpu minus(Cpu earlier) {
            return new Cpu(pigeon - earlier.pigeon, postgres - earlier.postgres, generator - earlier.generator);
        }

        String perThousand(long messages, boolean withPigeon) {
            if (messages == 0) {
                return "-";
            }
            double scale = 1000.0 / TICKS_PER_SECOND * 1000.0 / messages;
            return withPigeon
                    ? String.format(
                            Locale.ROOT, "%.0f + %.0f + %.0f", pigeon * scale, postgres * scale, generator * scale)
                    : String.format(Locale.ROOT, "%.0f + %.0f", postgres * scale, generator * scale);
        }

        private static String readComm(long pid) {
            try {
                return Files.readString(Path.of("/proc", String.valueOf(pid), "comm"))
                        .trim();
            } catch (IOException e) {
                return "";
            }
        }
    }
}
