package io.pigeon.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of the full cycle through {@code wrk} ({@code src/test/bench/wrk-cycle.lua}, its environment given by the
 * caller) with the CPU Pigeon, PostgreSQL and wrk spent over it, for the benchmarks of costs that should stay flat
 * (backlog, many queues, message sizes), which differ from one another only in what they set up around it.
 */
final class CycleRun {

    private static final Path WRK_SCRIPT = Path.of("src/test/bench/wrk-cycle.lua");
    private static final Pattern LATENCY =
            Pattern.compile("(?m)^BENCH (post|claim|delete) (\\d+) (\\S+) (\\S+) (\\S+) (\\S+)$");

    /** p50, p90, p99 and max in ms, and how many requests, of one request type. */
    record Latency(long count, double p50, double p90, double p99, double max) {}

    /** What one run moved and spent. */
    record Result(
            long messages,
            double seconds,
            double requestsPerSecond,
            Map<String, Latency> latencies,
            SystemUnderTest.Cpu cpu) {

        double messagesPerSecond() {
            return messages / seconds;
        }

        /** "claim 1.23/4.56" for each type: p50/p99 in ms. */
        String p50p99() {
            List<String> parts = new ArrayList<>();
            latencies.forEach((type, l) -> parts.add(String.format(Locale.ROOT, "%s %.2f/%.2f", type, l.p50, l.p99)));
            return String.join("  ", parts);
        }

        /** CPU ms per 1,000 messages, "pigeon + postgres + wrk". */
        String cpuPerThousand() {
            return perThousand(cpu, messages, true);
        }
    }

    /**
     * The system under test of the flat-cost scenarios: the Pigeon given and the server PG* names, pinned as the ratio
     * benchmark pins them when {@code bench.pin} is true (the load generator then runs on CPU 0).
     */
    static synchronized SystemUnderTest system(Optional<ProcessHandle> pigeon) throws Exception {
        // Found (and pinned) once: pinning moves this JVM to CPU 0, after which it could not check for two CPUs again.
        if (system == null) {
            system = SystemUnderTest.find(Boolean.getBoolean("bench.pin"), List.of(pigeon));
        } else {
            system.pin();
        }
        return system;
    }

    private static SystemUnderTest system;

    /** Pigeon's JVM: {@code bench.pigeon.pid}, else the process listening on the URL's port. */
    static Optional<ProcessHandle> pigeon(String url) {
        return SystemUnderTest.findJvm(System.getProperty("bench.pigeon.pid", ""), url);
    }

    /** CPU ms per 1,000 messages: "pigeon + postgres + generator", or "postgres + generator" without Pigeon. */
    static String perThousand(SystemUnderTest.Cpu cpu, long messages, boolean withPigeon) {
        if (messages == 0) {
            return "-";
        }
        String server = String.format(
                Locale.ROOT,
                "%.0f + %.0f",
                SystemUnderTest.Cpu.perThousand(cpu.postgres(), messages),
                SystemUnderTest.Cpu.perThousand(cpu.generator(), messages));
        return withPigeon
                ? String.format(Locale.ROOT, "%.0f + ", SystemUnderTest.Cpu.perThousand(cpu.jvm(), messages)) + server
                : server;
    }

    private CycleRun() {}

    static Result run(
            String url, int connections, int seconds, Map<String, String> environment, Optional<ProcessHandle> pigeon)
            throws Exception {
        SystemUnderTest system = system(pigeon);
        SystemUnderTest.Cpu before = system.sample(pigeon);
        String output = RatioBench.execute(
                system.generator(List.of(
                        "wrk",
                        "-t" + connections,
                        "-c" + connections,
                        "-d" + seconds + "s",
                        "--timeout",
                        "30s",
                        "-s",
                        WRK_SCRIPT.toString(),
                        url)),
                environment);
        SystemUnderTest.Cpu used = system.sample(pigeon).minus(before);
        if (output.contains("Non-2xx") || output.contains("Socket errors")) {
            throw new IllegalStateException("wrk saw failed requests:\n" + output);
        }
        Matcher moved = Pattern.compile("BENCH messages (\\d+)").matcher(output);
        Matcher rate = Pattern.compile("Requests/sec:\\s+([0-9.]+)").matcher(output);
        if (!moved.find() || !rate.find()) {
            throw new IllegalStateException("wrk printed no result:\n" + output);
        }
        Map<String, Latency> latencies = new LinkedHashMap<>();
        Matcher line = LATENCY.matcher(output);
        while (line.find()) {
            latencies.put(
                    line.group(1),
                    new Latency(
                            Long.parseLong(line.group(2)),
                            Double.parseDouble(line.group(3)),
                            Double.parseDouble(line.group(4)),
                            Double.parseDouble(line.group(5)),
                            Double.parseDouble(line.group(6))));
        }
        return new Result(Long.parseLong(moved.group(1)), seconds, Double.parseDouble(rate.group(1)), latencies, used);
    }
}
