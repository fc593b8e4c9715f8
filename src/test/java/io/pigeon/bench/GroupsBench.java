package io.pigeon.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * What a {@code "fifo"} queue costs beside a {@code "none"} one (issue 43, goal: fifo at least 0.7 of none at 16
 * groups and 16 clients): the full v2 cycle (post 10, claim 10, delete those by ids, every client on one queue) through
 * {@code wrk} ({@code wrk-cycle.lua} with BENCH_GROUPS and BENCH_ORDERING), its messages spread over {@code
 * bench.groups} groups round-robin, on a new queue of each ordering per run; beside it PGMQ's cycle on the same groups
 * through {@code pgbench} ({@code pgmq-grouped-cycle.sql}) with its grouped FIFO read ({@code read_grouped}) and its
 * plain read. Rounds alternate the contestants (the first of a round is the next one in the following round), each run
 * after a VACUUM of everyone's tables. Per run and as medians: messages/s (messages deleted), the system under test's
 * CPU per 1,000 messages (PostgreSQL, plus Pigeon's JVM for Pigeon; {@link RunMeter}), WAL bytes per message, the
 * machine's load average at the run's start, and the claim's (or read's) cost inside PostgreSQL from
 * pg_stat_statements: calls, mean execution ms, rows per call, execution ms per 1,000 messages moved.
 *
 * <p>PGMQ's grouped read needs PGMQ 1.8 or later: name its SQL-only install with {@code bench.pgmq-sql} and a peers'
 * database that does not hold an older PGMQ with {@code bench.peers-database}. Settings: {@code bench.groups}
 * (1,16,1000), {@code bench.clients}, {@code bench.seconds}, {@code bench.rounds} (3), {@code bench.warmup} (10 s of
 * each ordering first), {@code bench.peers} (true), {@code bench.pin}.
 */
final class GroupsBench {

    private static final List<String> VACUUM_PIGEON = List.of("psql", "-q", "-c", "VACUUM messages, claims, queues");
    private static final Path PGMQ_SCRIPT = Path.of("src/test/bench/pgmq-grouped-cycle.sql");
    /** Every claim statement of Pigeon records its claim so; PGMQ's reads are its functions read and read_grouped. */
    private static final String PIGEON_CLAIM =
            "%INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)%";

    private static final String PGMQ_READ = "%pgmq.read%";
    private static final List<String> PIGEON = List.of("none", "fifo");
    private static final List<String> PGMQ = List.of("pgmq read", "pgmq read_grouped");

    /** One run of one contestant: the run, its claim statements' share, and the load average when it started. */
    record Run(String contestant, RatioBench.Run run, StatementCosts.Totals claims, double load) {

        double cpu() {
            return run.cost().systemPerThousand(run.messages());
        }

        double claimMillisPerThousand() {
            return run.messages() == 0 ? Double.NaN : claims.execMillis() * 1000 / run.messages();
        }

        double claimMeanMillis() {
            return claims.calls() == 0 ? Double.NaN : claims.execMillis() / claims.calls();
        }

        double claimRows() {
            return claims.calls() == 0 ? Double.NaN : claims.rows() / (double) claims.calls();
        }
    }

    private final String url;
    private final RatioBench pigeon;
    private final Optional<PeerCycles> peers;
    private final StatementCosts statements;
    private final int seconds;

    private GroupsBench(
            String url, RatioBench pigeon, Optional<PeerCycles> peers, StatementCosts statements, int seconds) {
        this.url = url;
        this.pigeon = pigeon;
        this.peers = peers;
        this.statements = statements;
        this.seconds = seconds;
    }

    static void run(String url, int seconds, int[] clientCounts) throws Exception {
        int[] groupCounts = Arrays.stream(
                        System.getProperty("bench.groups", "1,16,1000").split(","))
                .map(String::trim)
                .mapToInt(Integer::parseInt)
                .toArray();
        int rounds = Integer.getInteger("bench.rounds", 3);
        int warmup = Integer.getInteger("bench.warmup", 10);
        Optional<ProcessHandle> jvm = CycleRun.pigeon(url);
        SystemUnderTest system = SystemUnderTest.find(Boolean.getBoolean("bench.pin"), List.of(jvm));
        try {
            System.out.println(system.describe());
            RunMeter meter = new RunMeter(system);
            Optional<PeerCycles> peers = Boolean.parseBoolean(System.getProperty("bench.peers", "true"))
                    ? Optional.of(PeerCycles.prepare(1))
                    : Optional.empty();
            GroupsBench bench = new GroupsBench(
                    url,
                    new RatioBench(url, seconds, "shared", jvm, meter, Map.of()),
                    peers,
                    StatementCosts.start(),
                    seconds);
            bench.checkOrdering();
            System.out.printf(
                    Locale.ROOT,
                    "Groups: full cycle (post 10, claim 10, delete 10), every client on one queue, %d s per run, %d"
                            + " round(s), groups %s, clients %s%s%n",
                    seconds,
                    rounds,
                    Arrays.toString(groupCounts),
                    Arrays.toString(clientCounts),
                    jvm.map(p -> ", Pigeon pid " + p.pid()).orElse(", Pigeon's process not found (no JVM CPU)"));
            if (warmup > 0) {
                for (String ordering : PIGEON) {
                    bench.pigeon.lasting(warmup).scripted(script(16, ordering)).http("v2", 4, 0);
                }
            }
            List<String> summary = new ArrayList<>();
            for (int groups : groupCounts) {
                for (int clients : clientCounts) {
                    summary.addAll(bench.summarise(groups, clients, bench.rounds(groups, clients, rounds)));
                }
            }
            System.out.printf("%nMedians (CPU: ms per 1,000 messages of PostgreSQL, plus Pigeon's JVM for Pigeon;"
                    + " claim: Pigeon's claim statements or PGMQ's read, from pg_stat_statements)%n%n");
            System.out.println("| groups | clients | contestant | msg/s | / none (read) | CPU: PG + JVM | WAL B/msg"
                    + " | claim calls | claim ms/call | rows/call | claim ms/1,000 msg | load average |");
            System.out.println("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
            summary.forEach(System.out::println);
            bench.statements.print(List.of(
                    System.getenv().getOrDefault("PGDATABASE", "pigeon"),
                    peers.map(PeerCycles::database).orElse("")));
        } finally {
            system.release();
        }
    }

    /** wrk-cycle.lua's settings for a queue of {@code ordering} whose messages name {@code groups} groups. */
    private static Map<String, String> script(int groups, String ordering) {
        return Map.of("BENCH_GROUPS", String.valueOf(groups), "BENCH_ORDERING", ordering);
    }

    /** Refuses to run when this Pigeon does not keep the ordering a queue is created with (a build before groups). */
    private void checkOrdering() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        URI queue = URI.create(url + "/v2/queues/groups-check");
        HttpRequest.Builder request = HttpRequest.newBuilder(queue)
                .header("X-Project-Id", "groups-bench")
                .header("Client-ID", CLIENT);
        http.send(
                request.copy()
                        .header("Content-Type", "application/json")
                        .PUT(HttpRequest.BodyPublishers.ofString("{\"_ordering\": \"fifo\"}"))
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        String metadata = http.send(request.copy().GET().build(), HttpResponse.BodyHandlers.ofString())
                .body();
        http.send(request.copy().DELETE().build(), HttpResponse.BodyHandlers.discarding());
        if (!metadata.replace(" ", "").contains("\"_ordering\":\"fifo\"")) {
            throw new IllegalStateException("Pigeon at " + url + " does not keep _ordering: " + metadata);
        }
    }

    private static final String CLIENT = "3381af92-2b9e-11e3-b191-71861300734c";

    /** Every contestant {@code rounds} times, alternating, each run printed as it ends. */
    private Map<String, List<Run>> rounds(int groups, int clients, int rounds) throws Exception {
        List<String> contestants = new ArrayList<>(PIGEON);
        if (peers.isPresent()) {
            contestants.addAll(PGMQ);
        }
        Map<String, List<Run>> runs = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            List<String> order = new ArrayList<>(contestants);
            Collections.rotate(order, -round);
            for (String contestant : order) {
                settle();
                Run run = measured(contestant, groups, clients);
                runs.computeIfAbsent(contestant, c -> new ArrayList<>()).add(run);
                System.out.printf(
                        Locale.ROOT,
                        "  round %d %3d groups %2d clients %-17s %7.0f msg/s  load %.1f  claim %d calls %.3f ms/call"
                                + " %.1f rows/call%n      %s%n",
                        round + 1,
                        groups,
                        clients,
                        contestant,
                        run.run.messagesPerSecond(),
                        run.load,
                        run.claims.calls(),
                        run.claimMeanMillis(),
                        run.claimRows(),
                        PIGEON.contains(contestant) ? run.run.httpCost() : run.run.pgbenchCost());
                run.run.latencies().forEach(line -> System.out.println("      " + line));
            }
        }
        return runs;
    }

    private Run measured(String contestant, int groups, int clients) throws Exception {
        double load = loadAverage();
        boolean ours = PIGEON.contains(contestant);
        String database = ours
                ? System.getenv().getOrDefault("PGDATABASE", "pigeon")
                : peers.orElseThrow().database();
        String pattern = ours ? PIGEON_CLAIM : PGMQ_READ;
        StatementCosts.Totals before = statements.totals(database, pattern);
        RatioBench.Run run;
        if (ours) {
            run = pigeon.scripted(script(groups, contestant)).http("v2", clients, 0);
        } else {
            PeerCycles peer = peers.orElseThrow();
            RatioBench.Run counted = peer.run(
                    PGMQ_SCRIPT,
                    pigeon,
                    clients,
                    Map.of("groups", String.valueOf(groups), "grouped", contestant.equals(PGMQ.get(1)) ? "1" : "0"));
            // pgbench counts transactions of 10 posted; a grouped read may take fewer (its groups held): what went
            // through is what was posted and is no longer there.
            long moved = counted.messages() - peer.pgmqMessagesLeft(1);
            run = new RatioBench.Run(
                    moved / (double) seconds,
                    counted.requestsPerSecond(),
                    moved,
                    counted.units(),
                    counted.cost(),
                    counted.latencies());
        }
        return new Run(contestant, run, statements.totals(database, pattern).minus(before), load);
    }

    /** VACUUM of Pigeon's hot tables and the peers', then a second's rest. */
    private void settle() throws Exception {
        RatioBench.execute(VACUUM_PIGEON, Map.of());
        if (peers.isPresent()) {
            peers.get().vacuum();
        }
        Thread.sleep(1_000);
    }

    private static double loadAverage() throws Exception {
        return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    }

    /** One markdown row per contestant: medians over the rounds, the ratio to none (PGMQ's to its plain read). */
    private List<String> summarise(int groups, int clients, Map<String, List<Run>> runs) {
        List<String> rows = new ArrayList<>();
        for (Map.Entry<String, List<Run>> entry : runs.entrySet()) {
            List<Run> of = entry.getValue();
            String reference = PIGEON.contains(entry.getKey()) ? PIGEON.get(0) : PGMQ.get(0);
            double rate = median(of, r -> r.run.messagesPerSecond());
            String ratio = entry.getKey().equals(reference)
                    ? ""
                    : String.format(
                            Locale.ROOT, "%.2f", rate / median(runs.get(reference), r -> r.run.messagesPerSecond()));
            Run middle = of.stream()
                    .sorted((a, b) -> Double.compare(a.cpu(), b.cpu()))
                    .toList()
                    .get(of.size() / 2);
            boolean ours = PIGEON.contains(entry.getKey());
            rows.add(String.format(
                    Locale.ROOT,
                    "| %d | %d | %s | %,.0f | %s | %s | %,.0f | %,d | %.3f | %.1f | %.0f | %.1f-%.1f |",
                    groups,
                    clients,
                    ours ? "Pigeon " + entry.getKey() : "PGMQ " + entry.getKey().substring(5),
                    rate,
                    ratio,
                    ours
                            ? String.format(
                                    Locale.ROOT,
                                    "%.0f (%.0f + %.0f)",
                                    middle.cpu(),
                                    middle.run.cost().postgresPerThousand(middle.run.messages()),
                                    middle.run.cost().jvmPerThousand(middle.run.messages()))
                            : String.format(Locale.ROOT, "%.0f", middle.cpu()),
                    median(of, r -> r.run.cost().walPerMessage(r.run.messages())),
                    (long) median(of, r -> r.claims.calls()),
                    median(of, Run::claimMeanMillis),
                    median(of, Run::claimRows),
                    median(of, Run::claimMillisPerThousand),
                    of.stream().mapToDouble(Run::load).min().orElse(0),
                    of.stream().mapToDouble(Run::load).max().orElse(0)));
        }
        return rows;
    }

    private static double median(List<Run> runs, ToDoubleFunction<Run> figure) {
        double[] sorted = runs.stream().mapToDouble(figure).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
