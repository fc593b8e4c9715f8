package io.pigeon.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;

/**
 * The soak (issue 44): whether Pigeon stays flat under steady load for as long as it runs. Against the replicas of
 * {@code bench.soak.urls} (comma-separated; {@code bench.url} alone by default), all on one database, with their
 * sweeper, dispatcher and per-queue metrics on: first the full v1 cycle through wrk unpaced on every replica at once
 * for {@code bench.soak.capacity-seconds} (30, after {@code bench.warmup} seconds, 15), its requests/s the measured
 * capacity; then {@code bench.soak.minutes} (10) intervals of {@code bench.soak.seconds} (60) of the same cycle paced
 * at half of it, spread evenly over the replicas ({@code bench.clients} connections each, 8 unless one count is
 * given), all on one queue of one project (competing consumers across replicas). Beside it {@link SoakHook} posts
 * {@code bench.soak.hook-rate} (10) messages/s to a queue with a webhook subscriber, reads each back (get) and
 * scrapes the metrics every 15 s. Each interval prints the p99 per request type, the webhook delivery lag, and what
 * {@link SoakProbe} reads (load average, heap after GC, the hot tables, connections); the end a verdict against
 * stated bounds ({@link SoakVerdict}). {@code PG*} must name the replicas' database (psql); jcmd must reach their
 * JVMs (the same user), found by their ports or named by {@code bench.soak.pids}.
 */
final class SoakBench {

    private static final String QUEUE = "cycle";

    private SoakBench() {}

    /** One interval as printed: the cycle's figures (p99 of each type the slowest replica's), side traffic, state. */
    record Interval(
            int number,
            double offered,
            double answered,
            double messagesPerSecond,
            Map<String, Double> p99,
            SoakHook.Figures side,
            SoakProbe.State state,
            String failure) {}

    static void run(String url, int seconds, int connections) throws Exception {
        List<String> urls = Arrays.stream(
                        System.getProperty("bench.soak.urls", url).split(","))
                .map(String::trim)
                .toList();
        int intervals = Integer.parseInt(System.getProperty("bench.soak.minutes", "10"));
        int capacitySeconds = Integer.parseInt(System.getProperty("bench.soak.capacity-seconds", "30"));
        int warmup = Integer.parseInt(System.getProperty("bench.warmup", "15"));
        double hookRate = Double.parseDouble(System.getProperty("bench.soak.hook-rate", "10"));
        List<String> pids = Arrays.stream(
                        System.getProperty("bench.soak.pids", "").split(","))
                .map(String::trim)
                .toList();
        List<Optional<ProcessHandle>> jvms = new ArrayList<>();
        for (int i = 0; i < urls.size(); i++) {
            jvms.add(SystemUnderTest.findJvm(i < pids.size() ? pids.get(i) : "", urls.get(i)));
        }
        String project = "soak-" + UUID.randomUUID();
        System.out.printf(
                Locale.ROOT,
                "Soak: full v1 cycle on one queue over %d replica(s) %s (JVMs %s), %d connections each; "
                        + "side traffic %.1f msg/s to a webhook queue; project %s%n",
                urls.size(),
                urls,
                jvms.stream()
                        .map(j -> j.map(p -> String.valueOf(p.pid())).orElse("?"))
                        .collect(Collectors.joining(",")),
                connections,
                hookRate,
                project);
        SoakProbe probe = new SoakProbe(jvms);
        ExecutorService replicas = Executors.newFixedThreadPool(urls.size());
        try (SoakHook hook = SoakHook.start(urls, project, hookRate)) {
            if (warmup > 0) {
                join(start(replicas, urls, jvms, connections, warmup, project, 0));
            }
            List<CycleRun.Result> capacity =
                    join(start(replicas, urls, jvms, connections, capacitySeconds, project, 0));
            double capacityRate = capacity.stream()
                    .mapToDouble(CycleRun.Result::requestsPerSecond)
                    .sum();
            double perConnection = capacityRate / 2 / (urls.size() * connections);
            System.out.printf(
                    Locale.ROOT,
                    "Capacity (%d s unpaced, load %.2f): %.0f requests/s, %.0f msg/s; per replica %s%n"
                            + "Soak at half: %.0f requests/s offered, %.3f per connection; %d intervals of %d s%n",
                    capacitySeconds,
                    probe.load(),
                    capacityRate,
                    capacity.stream()
                            .mapToDouble(CycleRun.Result::messagesPerSecond)
                            .sum(),
                    capacity.stream().map(CycleRun.Result::p50p99).toList(),
                    capacityRate / 2,
                    perConnection,
                    intervals,
                    seconds);
            System.out.println(
                    " #   load  req/s offered/answered   msg/s | p99 ms: post claim delete get lag | "
                            + "heap MB after GC | connections | notifications waiting (delivered/sent so far) | side errors, scrapes");
            hook.drain();
            System.out.println("     before: " + SoakProbe.describeTables(probe.take()));
            List<Interval> done = new ArrayList<>();
            for (int n = 1; n <= intervals; n++) {
                Interval interval =
                        interval(n, replicas, urls, jvms, connections, seconds, project, perConnection, probe, hook);
                print(interval);
                done.add(interval);
            }
            new SoakVerdict(done, capacityRate / 2).print();
        } finally {
            replicas.shutdownNow();
        }
    }

    private static Interval interval(
            int number,
            ExecutorService replicas,
            List<String> urls,
            List<Optional<ProcessHandle>> jvms,
            int connections,
            int seconds,
            String project,
            double perConnection,
            SoakProbe probe,
            SoakHook hook)
            throws Exception {
        List<Future<CycleRun.Result>> runs = start(replicas, urls, jvms, connections, seconds, project, perConnection);
        // Read while the load runs (a soak has no pauses), three quarters into the interval.
        Thread.sleep(seconds * 750L);
        SoakProbe.State state = probe.take();
        String failure = "";
        List<CycleRun.Result> results = List.of();
        try {
            results = join(runs);
        } catch (ExecutionException e) {
            failure = String.valueOf(e.getCause().getMessage()).lines().limit(3).collect(Collectors.joining(" "));
        }
        SoakHook.Figures side = hook.drain();
        Map<String, Double> p99 = new LinkedHashMap<>();
        for (String type : List.of("post", "claim", "delete")) {
            p99.put(
                    type,
                    results.stream()
                            .filter(r -> r.latencies().containsKey(type))
                            .mapToDouble(r -> r.latencies().get(type).p99())
                            .max()
                            .orElse(Double.NaN));
        }
        p99.put("get", side.getP99());
        p99.put("delivery lag", side.lagP99());
        return new Interval(
                number,
                perConnection * connections * urls.size(),
                results.stream().mapToDouble(CycleRun.Result::requestsPerSecond).sum(),
                results.stream().mapToDouble(CycleRun.Result::messagesPerSecond).sum(),
                p99,
                side,
                state,
                failure);
    }

    private static void print(Interval i) {
        SoakProbe.State s = i.state();
        System.out.printf(
                Locale.ROOT,
                "%2d %6.2f %6.0f/%-6.0f %7.0f | %s | %s | %s | %d (%d/%d delivered) | %d, %d (slowest %.0f ms)%s%n     %s%n",
                i.number(),
                s.load(),
                i.offered(),
                i.answered(),
                i.messagesPerSecond(),
                i.p99().values().stream()
                        .map(v -> String.format(Locale.ROOT, "%.1f", v))
                        .collect(Collectors.joining(" ")),
                s.heaps().stream()
                        .map(h -> h < 0 ? "?" : String.format(Locale.ROOT, "%.1f", h / 1048576.0))
                        .collect(Collectors.joining(" ")),
                s.connections().entrySet().stream()
                        .map(e -> e.getKey() + " " + e.getValue())
                        .collect(Collectors.joining(", ")),
                s.waitingDeliveries(),
                i.side().delivered(),
                i.side().sent(),
                i.side().errors(),
                i.side().scrapeFailures(),
                i.side().slowestScrapeMs(),
                (i.failure().isEmpty() ? "" : " FAILED: " + i.failure())
                        + (i.side().errors() == 0
                                ? ""
                                : " last side error: " + i.side().lastError()),
                SoakProbe.describeTables(s));
    }

    /** The cycle against every replica at once, {@code rate} requests/s per connection (0: unpaced). */
    private static List<Future<CycleRun.Result>> start(
            ExecutorService replicas,
            List<String> urls,
            List<Optional<ProcessHandle>> jvms,
            int connections,
            int seconds,
            String project,
            double rate) {
        Map<String, String> environment = Map.of(
                "BENCH_API",
                "v1",
                "BENCH_LAYOUT",
                "shared",
                "BENCH_PROJECT",
                project,
                "BENCH_QUEUE",
                QUEUE,
                "BENCH_RATE",
                String.format(Locale.ROOT, "%.3f", rate));
        List<Future<CycleRun.Result>> runs = new ArrayList<>();
        for (int i = 0; i < urls.size(); i++) {
            String url = urls.get(i);
            Optional<ProcessHandle> jvm = jvms.get(i);
            runs.add(replicas.submit(() -> CycleRun.run(url, connections, seconds, environment, jvm)));
        }
        return runs;
    }

    private static List<CycleRun.Result> join(List<Future<CycleRun.Result>> runs)
            throws InterruptedException, ExecutionException {
        List<CycleRun.Result> results = new ArrayList<>();
        ExecutionException failed = null;
        for (Future<CycleRun.Result> run : runs) {
            try {
                results.add(run.get());
            } catch (ExecutionException e) {
                failed = e;
            }
        }
        if (failed != null) {
            throw failed;
        }
        return results;
    }
}
