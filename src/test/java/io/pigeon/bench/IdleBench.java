package io.pigeon.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

/**
 * What Pigeon asks of its database when nothing happens: transactions per second (pg_stat_database's xact_commit +
 * xact_rollback of Pigeon's database, autovacuum's included) and, when pg_stat_statements is loaded, statements per
 * second and the most frequent statements, over {@code bench.idle.seconds} (60) each: first with nothing of the
 * benchmark's, then with {@code bench.idle.queues} (10,000) empty queues in one project (the sweeper, the metrics
 * sampler, the usage check and the vacuum run as always), then with {@code bench.idle.waiters} (1,000) consumers
 * each long-polling its own empty queue (a v2 claim with {@code "wait": bench.idle.wait}, 20 s, asked again as soon
 * as it is answered; started spread over one wait unless {@code bench.idle.spread=false}),
 * {@code bench.idle.waiters-per-project} (100) queues a project. Each measurement starts
 * {@code bench.idle.settle} (20 s) after its set-up. 1,000 connections from one address are past Pigeon's share per
 * address (512): run Pigeon with {@code PIGEON_HTTP_MAX_CONNECTIONS_PER_ADDRESS=0}. The goal (issue 41) is under 50
 * statements a second.
 */
final class IdleBench {

    private final String url;
    private final int seconds = Integer.parseInt(System.getProperty("bench.idle.seconds", "60"));
    private final int settle = Integer.parseInt(System.getProperty("bench.idle.settle", "20"));
    private final BenchQueues queues;
    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    private IdleBench(String url) {
        this.url = url;
        this.queues = new BenchQueues(url);
    }

    static void run(String url) throws Exception {
        int idleQueues = Integer.parseInt(System.getProperty("bench.idle.queues", "10000"));
        int waiters = Integer.parseInt(System.getProperty("bench.idle.waiters", "1000"));
        int perProject = Integer.parseInt(System.getProperty("bench.idle.waiters-per-project", "100"));
        IdleBench bench = new IdleBench(url);
        boolean statements = BenchDatabase.statementStatistics();
        System.out.printf(
                Locale.ROOT,
                "Idle cost: transactions%s per second on Pigeon's database, %d s each, %d s after each set-up%n",
                statements ? " and statements (pg_stat_statements)" : " (pg_stat_statements not loaded: no statements)",
                bench.seconds,
                bench.settle);
        bench.measure("nothing of the benchmark's", statements);

        String project = "bench-idle-" + UUID.randomUUID();
        queues(bench, List.of(project), idleQueues);
        try {
            bench.measure(idleQueues + " empty queues, no client", statements);
        } finally {
            bench.queues.delete(List.of(project), idleQueues);
        }

        int projects = (waiters + perProject - 1) / perProject;
        List<String> waiterProjects = IntStream.rangeClosed(1, projects)
                .mapToObj(p -> project + "-" + p)
                .toList();
        queues(bench, waiterProjects, perProject);
        try {
            bench.waiting(waiterProjects, perProject, waiters, statements);
        } finally {
            bench.queues.delete(waiterProjects, perProject);
        }
    }

    private static void queues(IdleBench bench, List<String> projects, int perProject) throws Exception {
        long started = System.nanoTime();
        bench.queues.create(projects, perProject);
        System.out.printf(
                Locale.ROOT,
                "(%d queues made in %.0f s)%n",
                projects.size() * perProject,
                (System.nanoTime() - started) / 1e9);
    }

    /** {@code count} consumers long-polling, one a queue, measured once they all wait. */
    private void waiting(List<String> projects, int perProject, int count, boolean statements) throws Exception {
        int wait = Integer.parseInt(System.getProperty("bench.idle.wait", "20"));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger empty = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        AtomicReference<String> firstOther = new AtomicReference<>();
        List<CompletableFuture<Void>> loops = new ArrayList<>();
        // Started together, the consumers would stay in step (each asks again as soon as its wait ends) and Pigeon
        // would share one statement among many of them; spread over one wait, each re-ask is a claim of its own, the
        // case that costs the database most.
        boolean spread = Boolean.parseBoolean(System.getProperty("bench.idle.spread", "true"));
        for (int i = 0; i < count; i++) {
            String path = "/v2/queues/" + (i % perProject + 1) + "/claims?limit=10";
            String project = projects.get(i / perProject);
            long startAfter = spread ? i * wait * 1000L / count : 0;
            loops.add(CompletableFuture.supplyAsync(
                            () -> null, CompletableFuture.delayedExecutor(startAfter, TimeUnit.MILLISECONDS))
                    .thenCompose(ignored -> poll(project, path, wait, stop, empty, other, firstOther)));
        }
        try {
            measure(
                    count + " consumers long-polling (wait " + wait + " s" + (spread ? ", spread)" : ", in step)"),
                    statements);
        } finally {
            stop.set(true);
            CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(wait + 30L, TimeUnit.SECONDS);
        }
        System.out.printf(
                Locale.ROOT,
                "    claims answered 204 (nothing, after the wait): %d; otherwise: %d%s%n",
                empty.get(),
                other.get(),
                firstOther.get() == null ? "" : " (first: " + firstOther.get() + ")");
    }

    private CompletableFuture<Void> poll(
            String project,
            String path,
            int wait,
            AtomicBoolean stop,
            AtomicInteger empty,
            AtomicInteger other,
            AtomicReference<String> firstOther) {
        HttpRequest claim = HttpRequest.newBuilder(URI.create(url + path))
                .header("X-Project-Id", project)
                .header("Client-ID", "3381af92-2b9e-11e3-b191-71861300734c")
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(wait + 30L))
                .POST(HttpRequest.BodyPublishers.ofString("{\"ttl\": 60, \"grace\": 60, \"wait\": " + wait + "}"))
                .build();
        return http.sendAsync(claim, HttpResponse.BodyHandlers.ofString())
                .handle((answer, failure) -> {
                    if (answer != null && answer.statusCode() == 204) {
                        empty.incrementAndGet();
                    } else {
                        other.incrementAndGet();
                        firstOther.compareAndSet(
                                null, answer != null ? answer.statusCode() + " " + answer.body() : failure.toString());
                        sleepAfterFailure();
                    }
                    return null;
                })
                .thenCompose(ignored -> stop.get()
                        ? CompletableFuture.completedFuture(null)
                        : poll(project, path, wait, stop, empty, other, firstOther));
    }

    /** A second's pause after an answer other than 204, so that a refusing Pigeon is not asked in a tight loop. */
    private static void sleepAfterFailure() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits {@code settle} s, then counts transactions and statements over {@code seconds} s, and prints them. */
    private void measure(String what, boolean statements) throws Exception {
        Thread.sleep(settle * 1000L);
        if (statements) {
            BenchDatabase.query("SELECT pg_stat_statements_reset()");
        }
        long before = BenchDatabase.transactions();
        Thread.sleep(seconds * 1000L);
        long after = BenchDatabase.transactions();
        String calls = statements
                ? BenchDatabase.query(
                        "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid"
                                + " WHERE d.datname = current_database() AND s.query NOT LIKE '%pg_stat%'")
                : "";
        System.out.printf(
                Locale.ROOT,
                "%-48s %7.1f transactions/s%s%n",
                what,
                (after - before) / (double) seconds,
                statements
                        ? String.format(Locale.ROOT, "  %7.1f statements/s", Long.parseLong(calls) / (double) seconds)
                        : "");
        if (statements) {
            String top = BenchDatabase.query(String.format(
                    Locale.ROOT,
                    "SELECT round(s.calls / %d.0, 2) || '/s  ' || left(regexp_replace(s.query, '\\s+', ' ', 'g'), 110)"
                            + " FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid"
                            + " WHERE d.datname = current_database() AND s.query NOT LIKE '%%pg_stat%%'"
                            + " ORDER BY s.calls DESC LIMIT 8",
                    seconds));
            top.lines().forEach(line -> System.out.println("      " + line));
        }
    }
}
