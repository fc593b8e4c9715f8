package io.pigeon.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the SQS wire costs per message beside the Zaqar API (issue 42, goal: within 10 %): the same full cycle (10
 * sent in one request, 10 received, those 10 deleted in one request) through {@code wrk}, once through the Zaqar v2 API
 * ({@code src/test/bench/wrk-cycle.lua}) and once through SQS's JSON 1.0 protocol ({@code wrk-sqs-cycle.lua}:
 * SendMessageBatch, ReceiveMessage, DeleteMessageBatch of the receipt handles), the two alternating in each round (the
 * first wire of a round is the other one in the next), each run after a VACUUM of the hot tables. Per run and as
 * medians: messages/s, the system under test's CPU per 1,000 messages (PostgreSQL plus Pigeon's JVM, {@link
 * RunMeter}), WAL bytes per message and commits per request. On a busy machine the rate moves with everything else;
 * CPU per message is the figure to compare.
 *
 * <p>Pigeon must run in auth mode {@code none} (the SQS script names its project in an unsigned Authorization
 * header), and {@code PG*} must name its database. Settings: {@code bench.clients}, {@code bench.seconds}, {@code
 * bench.rounds} (3), {@code bench.layout} ({@code shared}: every connection on one queue; {@code per-client}), {@code
 * bench.warmup} (10 s of each wire first, unmeasured), {@code bench.pin}.
 */
final class SqsWireBench {

    private static final Path ZAQAR_SCRIPT = Path.of("src/test/bench/wrk-cycle.lua");
    private static final Path SQS_SCRIPT = Path.of("src/test/bench/wrk-sqs-cycle.lua");
    private static final List<String> VACUUM = List.of("psql", "-q", "-c", "VACUUM messages, claims, queues");
    private static final List<String> WIRES = List.of("zaqar-v2", "sqs-json");

    /** One run of one wire: messages moved in how long, requests, and what it cost. */
    record Run(String wire, long messages, int seconds, long requests, RunMeter.Cost cost, String latencies) {

        double messagesPerSecond() {
            return messages / (double) seconds;
        }

        double cpuPerThousand() {
            return cost.systemPerThousand(messages);
        }
    }

    private final String url;
    private final int seconds;
    private final String layout;
    private final String project = "sqsbench-" + UUID.randomUUID().toString().substring(0, 8);
    private final Optional<ProcessHandle> pigeon;
    private final RunMeter meter;

    private SqsWireBench(String url, int seconds, String layout, Optional<ProcessHandle> pigeon, RunMeter meter) {
        this.url = url;
        this.seconds = seconds;
        this.layout = layout;
        this.pigeon = pigeon;
        this.meter = meter;
    }

    static void run(String url, int seconds, int[] clientCounts) throws Exception {
        String layout = System.getProperty("bench.layout", "shared");
        if (!layout.equals("shared") && !layout.equals("per-client")) {
            throw new IllegalArgumentException("bench.layout is shared or per-client");
        }
        int rounds = Integer.getInteger("bench.rounds", 3);
        int warmup = Integer.getInteger("bench.warmup", 10);
        Optional<ProcessHandle> pigeon = CycleRun.pigeon(url);
        SystemUnderTest system = SystemUnderTest.find(Boolean.getBoolean("bench.pin"), List.of(pigeon));
        try {
            System.out.println(system.describe());
            SqsWireBench bench = new SqsWireBench(url, seconds, layout, pigeon, new RunMeter(system));
            System.out.printf(
                    Locale.ROOT,
                    "SQS wire against Zaqar v2: full cycle (10 sent, 10 received, 10 deleted), layout %s, %d s per run,"
                            + " %d round(s), project %s%s%n",
                    layout,
                    seconds,
                    rounds,
                    bench.project,
                    pigeon.map(p -> ", Pigeon pid " + p.pid()).orElse(", Pigeon's process not found (no JVM CPU)"));
            if (warmup > 0) {
                for (String wire : WIRES) {
                    bench.wrk(wire, 4, warmup);
                }
            }
            List<String> summary = new ArrayList<>();
            for (int clients : clientCounts) {
                Map<String, List<Run>> runs = new LinkedHashMap<>();
                for (int round = 0; round < rounds; round++) {
                    List<String> order = new ArrayList<>(WIRES);
                    if (round % 2 == 1) {
                        Collections.reverse(order);
                    }
                    for (String wire : order) {
                        RatioBench.execute(VACUUM, Map.of());
                        Thread.sleep(1_000);
                        Run run = bench.measured(wire, clients);
                        runs.computeIfAbsent(wire, w -> new ArrayList<>()).add(run);
                        System.out.printf(
                                Locale.ROOT,
                                "  round %d %-8s %2d clients %7.0f msg/s  %s%n      %s%n",
                                round + 1,
                                wire,
                                clients,
                                run.messagesPerSecond(),
                                run.cost.describe(run.messages, run.requests, "request", "wrk"),
                                run.latencies);
                    }
                }
                summary.addAll(bench.summarise(clients, runs));
            }
            System.out.println("Medians per wire (CPU: PostgreSQL + Pigeon's JVM, ms per 1,000 messages; range over"
                    + " rounds in brackets)");
            System.out.printf(
                    "%7s %-8s %9s %22s %9s %12s%n",
                    "clients", "wire", "msg/s", "CPU ms/1,000 msg", "WAL B/msg", "SQS/Zaqar");
            summary.forEach(System.out::println);
        } finally {
            system.release();
        }
    }

    private List<String> summarise(int clients, Map<String, List<Run>> runs) {
        List<String> lines = new ArrayList<>();
        double zaqarCpu = median(runs.get(WIRES.get(0)), Run::cpuPerThousand);
        for (String wire : WIRES) {
            List<Run> of = runs.get(wire);
            double cpu = median(of, Run::cpuPerThousand);
            lines.add(String.format(
                    Locale.ROOT,
                    "%7d %-8s %9.0f %8.0f (%.0f-%.0f) %9.0f %12s",
                    clients,
                    wire,
                    median(of, Run::messagesPerSecond),
                    cpu,
                    of.stream().mapToDouble(Run::cpuPerThousand).min().orElse(0),
                    of.stream().mapToDouble(Run::cpuPerThousand).max().orElse(0),
                    median(of, r -> r.cost.walPerMessage(r.messages)),
                    wire.equals(WIRES.get(0)) ? "" : String.format(Locale.ROOT, "%.2f", cpu / zaqarCpu)));
        }
        return lines;
    }

    private static double median(List<Run> runs, ToDoubleFunction<Run> figure) {
        double[] sorted = runs.stream().mapToDouble(figure).sorted().toArray();
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private Run measured(String wire, int clients) throws Exception {
        RunMeter.Started started = meter.start(pigeon, Map.of());
        String output = wrk(wire, clients, seconds);
        RunMeter.Cost cost = started.stop();
        Matcher moved = Pattern.compile("BENCH messages (\\d+)").matcher(output);
        Matcher requests = Pattern.compile("(\\d+) requests in ").matcher(output);
        if (!moved.find() || !requests.find()) {
            throw new IllegalStateException("wrk printed no result:\n" + output);
        }
        String latencies = output.lines()
                .filter(l -> l.matches("BENCH (post|claim|delete) .*"))
                .map(l -> {
                    String[] f = l.split(" ");
                    return String.format(Locale.ROOT, "%s %s/%s", f[1], f[3], f[5]);
                })
                .reduce((a, b) -> a + "  " + b)
                .map(l -> "p50/p99 ms: " + l)
                .orElse("");
        return new Run(
                wire, Long.parseLong(moved.group(1)), seconds, Long.parseLong(requests.group(1)), cost, latencies);
    }

    /** wrk's output for one run of {@code wire}'s script, refused when a request failed. */
    private String wrk(String wire, int clients, int length) throws Exception {
        boolean sqs = wire.equals("sqs-json");
        Map<String, String> environment = sqs
                ? Map.of("BENCH_PROJECT", project, "BENCH_LAYOUT", layout, "BENCH_QUEUE", "sqs-1")
                : Map.of("BENCH_API", "v2", "BENCH_PROJECT", project, "BENCH_LAYOUT", layout, "BENCH_QUEUE", "1");
        String output = RatioBench.execute(
                meter.generator(List.of(
                        "wrk",
                        "-t" + clients,
                        "-c" + clients,
                        "-d" + length + "s",
                        "--timeout",
                        "30s",
                        "-s",
                        (sqs ? SQS_SCRIPT : ZAQAR_SCRIPT).toString(),
                        url)),
                environment);
        if (output.contains("Non-2xx") || output.contains("Socket errors") || output.contains("BENCH failed")) {
            throw new IllegalStateException(wire + ": wrk saw failed requests:\n" + output);
        }
        return output;
    }
}
