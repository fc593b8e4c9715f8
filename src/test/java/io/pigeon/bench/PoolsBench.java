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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The full cycle (post 10, claim 10, delete those 10) of {@code bench.clients} clients, a queue each, spread over 1,
 * 2, ... of the pools named by {@code bench.pool-uris} (PostgreSQL URLs of separate servers, comma separated): for
 * each count the pools are registered (weight 1), the cycle runs through {@code wrk} for {@code bench.seconds}, and the
 * queues and pools are removed again. Prints messages/s, where the queues went, and the CPU of each PostgreSQL server
 * (its postmaster and every backend, by data directory) and of Pigeon per 1,000 messages. Pigeon must run with its
 * operator role reachable by {@code X-Roles: admin} ({@code PIGEON_AUTH_TRUST_ROLES_HEADER=true}, no OIDC), and
 * {@code PG*} must name the catalogue (the placements are read from it with {@code psql}).
 */
final class PoolsBench {

    private static final double TICKS_PER_SECOND = 100.0;
    private static final Path WRK_SCRIPT = Path.of("src/test/bench/wrk-cycle.lua");

    private final String url;
    private final int seconds;
    private final HttpClient http = HttpClient.newHttpClient();

    private PoolsBench(String url, int seconds) {
        this.url = url;
        this.seconds = seconds;
    }

    static void run(String url, int seconds, int clients) throws Exception {
        List<String> uris = Arrays.stream(
                        System.getProperty("bench.pool-uris", "").split(","))
                .map(String::trim)
                .filter(uri -> !uri.isEmpty())
                .toList();
        if (uris.isEmpty()) {
            throw new IllegalArgumentException(
                    "bench.pool-uris names the pools' servers, e.g. "
                            + "postgresql://pigeon:pigeon@localhost:5433/pigeon,postgresql://pigeon:pigeon@localhost:5434/pigeon");
        }
        int rounds = Integer.parseInt(System.getProperty("bench.rounds", "1"));
        PoolsBench bench = new PoolsBench(url, seconds);
        System.out.printf(
                Locale.ROOT,
                "Full cycle (post 10, claim 10, delete 10), %d clients with a queue each, v2, %d s per run, "
                        + "median of %d round(s)%n",
                clients,
                seconds,
                rounds);
        System.out.printf(
                "%5s %10s  %-22s %s%n",
                "pools",
                "msg/s",
                "queues per pool",
                "CPU ms per 1,000 messages: pigeon | each PostgreSQL server (by data directory)");
        // Measured: a fresh JVM's first 10 s after a 15 s warm-up still cost Pigeon 3x the CPU per message (its JIT).
        int warmup = Integer.parseInt(System.getProperty("bench.warmup", "30"));
        if (warmup > 0) {
            new PoolsBench(url, warmup).measure(uris.subList(0, 1), clients);
        }
        for (int pools = 1; pools <= uris.size(); pools++) {
            List<Result> results = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                results.add(bench.measure(uris.subList(0, pools), clients));
            }
            Result median = results.stream()
                    .sorted((a, b) -> Double.compare(a.messagesPerSecond, b.messagesPerSecond))
                    .toList()
                    .get(results.size() / 2);
            System.out.printf(
                    Locale.ROOT,
                    "%5d %10.0f  %-22s %s%n",
                    pools,
                    median.messagesPerSecond,
                    median.queuesPerPool,
                    median.cpu);
        }
    }

    /** One run's figures, formatted. */
    private record Result(double messagesPerSecond, String queuesPerPool, String cpu) {}

    private Result measure(List<String> uris, int clients) throws Exception {
        String project = "bench-pools-" + UUID.randomUUID();
        List<String> names = new ArrayList<>();
        for (int i = 0; i < uris.size(); i++) {
            String name = "bench-" + (i + 1);
            call("PUT", "/v2/pools/" + name, project, "{\"uri\": \"" + uris.get(i) + "\", \"weight\": 1}", 201);
            names.add(name);
        }
        try {
            Map<String, Integer> placed = new TreeMap<>();
            for (int queue = 1; queue <= clients; queue++) {
                call("PUT", "/v2/queues/" + queue, project, "{}", 201);
            }
            Map<Long, Long> before = postgresTicks();
            long pigeonBefore = pigeonTicks();
            String output = RatioBench.execute(
                    List.of(
                            "wrk",
                            "-t" + clients,
                            "-c" + clients,
                            "-d" + seconds + "s",
                            "--timeout",
                            "10s",
                            "-s",
                            WRK_SCRIPT.toString(),
                            url),
                    Map.of(
                            "BENCH_API",
                            "v2",
                            "BENCH_LAYOUT",
                            "per-client",
                            "BENCH_PROJECT",
                            project,
                            "BENCH_RATE",
                            "0"));
            long pigeonUsed = pigeonTicks() - pigeonBefore;
            Map<Long, Long> after = postgresTicks();
            if (output.contains("Non-2xx") || output.contains("Socket errors")) {
                throw new IllegalStateException("wrk saw failed requests:\n" + output);
            }
            Matcher moved = Pattern.compile("BENCH messages (\\d+)").matcher(output);
            if (!moved.find()) {
                throw new IllegalStateException("wrk printed no result:\n" + output);
            }
            long messages = Long.parseLong(moved.group(1));
            for (String name : names) {
                placed.put(name, 0);
            }
            for (int queue = 1; queue <= clients; queue++) {
                placed.merge(poolOf(project, queue), 1, Integer::sum);
            }
            double scale = 1000.0 / TICKS_PER_SECOND * 1000.0 / messages;
            StringBuilder cpu = new StringBuilder(String.format(Locale.ROOT, "%.0f |", pigeonUsed * scale));
            after.forEach((postmaster, ticks) -> {
                long used = ticks - before.getOrDefault(postmaster, 0L);
                cpu.append(String.format(Locale.ROOT, " %s %.0f", dataDirectory(postmaster), used * scale));
            });
            return new Result(messages / (double) seconds, placed.values().toString(), cpu.toString());
        } finally {
            for (int queue = 1; queue <= clients; queue++) {
                call("DELETE", "/v2/queues/" + queue, project, null, 204);
            }
            for (String name : names) {
                call("DELETE", "/v2/pools/" + name, project, null, 204);
            }
        }
    }

    /** The pool a queue was placed on, as the queue's own answer cannot tell: the pool whose server has it. */
    private String poolOf(String project, int queue) throws Exception {
        // The operator's health report does not list queues; the placement is asked of the catalogue through psql.
        String output = RatioBench.execute(
                List.of(
                        "psql",
                        "-Atc",
                        "SELECT coalesce(pool, 'home') FROM placements WHERE project = '" + project + "' AND queue = '"
                                + queue + "'"),
                Map.of());
        return output.trim();
    }

    private void call(String method, String path, String project, String body, int expected) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + path))
                .header("X-Project-Id", project)
                .header("X-Roles", "admin")
                .header("Client-ID", "3381af92-2b9e-11e3-b191-71861300734c");
        request = body == null
                ? request.method(method, HttpRequest.BodyPublishers.noBody())
                : request.header("Content-Type", "application/json")
                        .method(method, HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != expected) {
            throw new IllegalStateException(
                    method + " " + path + " answered " + response.statusCode() + ": " + response.body());
        }
    }

    // ---- CPU, from /proc ----

    private static long pigeonTicks() {
        return ProcessHandle.allProcesses()
                .filter(p -> p.info()
                        .commandLine()
                        .map(c -> c.contains("quarkus-run.jar"))
                        .orElse(false))
                .mapToLong(p -> SystemUnderTest.ticks(p.pid(), false))
                .sum();
    }

    /** CPU ticks of each PostgreSQL server, by its postmaster's pid: its own, its live processes', its reaped ones'. */
    private static Map<Long, Long> postgresTicks() throws IOException {
        Map<Long, Long> byPostmaster = new TreeMap<>();
        Map<Long, Long> parents = new HashMap<>();
        List<Long> postgres = new ArrayList<>();
        try (var processes = Files.list(Path.of("/proc"))) {
            for (Path process : processes
                    .filter(p -> p.getFileName().toString().matches("\\d+"))
                    .toList()) {
                try {
                    if (Files.readString(process.resolve("comm")).trim().equals("postgres")) {
                        long pid = Long.parseLong(process.getFileName().toString());
                        postgres.add(pid);
                        parents.put(
                                pid,
                                ProcessHandle.of(pid)
                                        .flatMap(ProcessHandle::parent)
                                        .map(ProcessHandle::pid)
                                        .orElse(0L));
                    }
                } catch (IOException ended) {
                    // the process ended between listing and reading
                }
            }
        }
        for (long pid : postgres) {
            boolean postmaster = !parents.containsKey(parents.get(pid));
            long root = postmaster ? pid : parents.get(pid);
            byPostmaster.merge(root, SystemUnderTest.ticks(pid, postmaster), Long::sum);
        }
        return byPostmaster;
    }

    private static String dataDirectory(long postmaster) {
        try {
            String[] arguments = new String(
                            Files.readAllBytes(Path.of("/proc", String.valueOf(postmaster), "cmdline")),
                            StandardCharsets.UTF_8)
                    .split("\0");
            for (int i = 0; i + 1 < arguments.length; i++) {
                if (arguments[i].equals("-D")) {
                    return Path.of(arguments[i + 1]).getFileName().toString();
                }
            }
        } catch (IOException e) {
            // gone
        }
        return "pid " + postmaster;
    }
}
