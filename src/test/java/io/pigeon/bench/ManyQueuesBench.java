package io.pigeon.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.IntStream;

/**
 * The full cycle (v2: post 10, claim 10, delete those by ids, through {@code wrk}) spread over many queues, each cycle
 * on a queue picked at random: {@code bench.many-queues} queues (10,000) in one project, then
 * {@code bench.many-projects} projects (1,000) of {@code bench.queues-per-project} queues each (10); beside the same
 * cycle with a queue per client (the baseline, the ratio benchmark's per-client layout). Prints messages/s, the ratio
 * to the baseline, p50/p99 per request type and the CPU per 1,000 messages. The queues are made through the API
 * before each run (eight requests at a time) and deleted after it.
 */
final class ManyQueuesBench {

    private final String url;
    private final int seconds;
    private final BenchQueues queues;
    private final Optional<ProcessHandle> pigeon;

    private ManyQueuesBench(String url, int seconds) {
        this.url = url;
        this.seconds = seconds;
        this.queues = new BenchQueues(url);
        this.pigeon = CycleRun.pigeon(url);
    }

    static void run(String url, int seconds, int[] clientCounts) throws Exception {
        int manyQueues = Integer.parseInt(System.getProperty("bench.many-queues", "10000"));
        int projects = Integer.parseInt(System.getProperty("bench.many-projects", "1000"));
        int perProject = Integer.parseInt(System.getProperty("bench.queues-per-project", "10"));
        ManyQueuesBench bench = new ManyQueuesBench(url, seconds);
        System.out.printf(
                Locale.ROOT,
                "Many queues: v2 full cycle (post 10, claim 10, delete 10 by ids), each cycle on a queue picked at random;"
                        + " %d s per run%n",
                seconds);
        System.out.printf(
                "%-28s %7s %9s %6s  %-44s %s%n",
                "layout", "clients", "msg/s", "/one", "p50/p99 ms", "CPU ms per 1,000 msg (pigeon + postgres + wrk)");
        String base = "bench-many-" + UUID.randomUUID();
        for (int clients : clientCounts) {
            double baseline =
                    bench.layout("a queue per client", base + "-own", List.of(base + "-own"), clients, clients, 0, 0);
            bench.layout(manyQueues + " queues, 1 project", base, List.of(base), manyQueues, clients, 1, baseline);
            List<String> many = IntStream.rangeClosed(1, projects)
                    .mapToObj(p -> base + "-" + p)
                    .toList();
            bench.layout(
                    projects + " projects x " + perProject + " queues",
                    base,
                    many,
                    perProject,
                    clients,
                    projects,
                    baseline);
        }
    }

    /**
     * One run: the queues made, the cycle, the queues deleted. {@code randomProjects} 0 is the per-client layout in
     * {@code project}; otherwise each cycle picks one of the queues at random, and one of the projects when several
     * ({@code projects} are then {@code project}-1 to {@code project}-n, as wrk-cycle.lua names them).
     */
    private double layout(
            String name,
            String project,
            List<String> projects,
            int queueCount,
            int clients,
            int randomProjects,
            double baseline)
            throws Exception {
        long started = System.nanoTime();
        queues.create(projects, queueCount);
        double made = (System.nanoTime() - started) / 1e9;
        try {
            Map<String, String> environment = randomProjects == 0
                    ? Map.of("BENCH_API", "v2", "BENCH_LAYOUT", "per-client", "BENCH_PROJECT", project)
                    : Map.of(
                            "BENCH_API",
                            "v2",
                            "BENCH_LAYOUT",
                            "random",
                            "BENCH_PROJECT",
                            project,
                            "BENCH_QUEUES",
                            String.valueOf(queueCount),
                            "BENCH_PROJECTS",
                            randomProjects > 1 ? String.valueOf(randomProjects) : "0");
            CycleRun.Result run = CycleRun.run(url, clients, seconds, environment, pigeon);
            double perSecond = run.messagesPerSecond();
            System.out.printf(
                    Locale.ROOT,
                    "%-28s %7d %9.0f %6s  %-44s %s   (%d queues made in %.0f s)%n",
                    name,
                    clients,
                    perSecond,
                    baseline > 0 ? String.format(Locale.ROOT, "%.2f", perSecond / baseline) : "1.00",
                    run.p50p99(),
                    run.cpuPerThousand(),
                    projects.size() * queueCount,
                    made);
            return perSecond;
        } finally {
            queues.delete(projects, queueCount);
        }
    }
}
