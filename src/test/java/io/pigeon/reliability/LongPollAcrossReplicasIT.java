package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.PostgresResource;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Two Pigeon processes over one database: a claim waiting on replica B is woken by a post on replica A (PostgreSQL's
 * NOTIFY, sent because B marked the queue); wake latencies printed for both replicas. Then 1,000 idle claims wait on
 * one replica for 60 s: the database's transactions per second and the replica's heap are printed. Last, a replica
 * stopped with SIGTERM answers its waiters at once (204) and does not wait for them.
 */
class LongPollAcrossReplicasIT {

    private static final String CLIENT = "3381af92-2b9e-11e3-b191-71861300734c";
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String project = "longpoll-" + System.nanoTime();

    private CompletableFuture<HttpResponse<String>> claim(Replica replica, String queue, int wait) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(replica.url() + "/v2/queues/" + queue + "/claims"))
                .timeout(Duration.ofSeconds(wait + 30))
                .header("X-Project-Id", project)
                .header("Client-ID", CLIENT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"wait\": " + wait + "}"))
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    private void post(Replica replica, String queue, String body) throws Exception {
        HttpResponse<String> posted = replica.send(
                http,
                Duration.ofSeconds(10),
                project,
                "POST",
                "/v2/queues/" + queue + "/messages",
                "{\"messages\": [{\"ttl\": 300, \"body\": " + body + "}]}");
        assertEquals(201, posted.statusCode(), posted.body());
    }

    private void createQueue(Replica replica, String queue) throws Exception {
        assertEquals(
                201,
                replica.send(http, Duration.ofSeconds(10), project, "PUT", "/v2/queues/" + queue, "{}")
                        .statusCode());
    }

    /** Wake trials per replica: 50 in the suite, more for a measurement (-Dpigeon.it.wake-trials=200). */
    private static final int WAKE_TRIALS = Integer.getInteger("pigeon.it.wake-trials", 50);

    /**
     * The 1,000 idle waiters for 60 s (about 100 s in all) are a measurement for a quiet machine, not a check of the
     * suite: run with -Dpigeon.it.idle-waiters=true.
     */
    private static final boolean MEASURE_IDLE_WAITERS = Boolean.getBoolean("pigeon.it.idle-waiters");

    @Test
    void aPostOnAnotherReplicaWakesAWaitingClaim() throws Exception {
        Map<String, String> config = new HashMap<>(new PostgresResource().start());
        config.put("pigeon.claim-wait.max-waiters-per-project", "2000");
        Replica a = Replica.start("longpoll-a", config, Replica.FIRST_JIT_TIER);
        List<String> smallHeap = new ArrayList<>(Replica.FIRST_JIT_TIER);
        smallHeap.add("-Xmx256m");
        Replica b = Replica.start("longpoll-b", config, smallHeap);
        try {
            a.awaitReady();
            b.awaitReady();
            createQueue(a, "across");

            long sent = System.nanoTime();
            CompletableFuture<HttpResponse<String>> waiting = claim(b, "across", 20);
            Thread.sleep(3000);
            long posted = System.nanoTime();
            post(a, "across", "\"across\"");
            HttpResponse<String> answer = waiting.get(30, TimeUnit.SECONDS);
            long done = System.nanoTime();
            assertEquals(201, answer.statusCode(), answer.body());
            assertTrue(answer.body().contains("\"across\""), answer.body());
            System.out.printf(
                    "claim waiting on B, post on A 3 s later: answered %d ms after the claim, %d ms after the post%n",
                    (done - sent) / 1_000_000, (done - posted) / 1_000_000);
            assertTrue((done - posted) / 1_000_000 < 1000, "woken " + (done - posted) / 1_000_000 + " ms after");

            for (Replica waiter : List.of(a, b)) {
                List<Long> latencies = new ArrayList<>();
                for (int trial = 0; trial < WAKE_TRIALS; trial++) {
                    CompletableFuture<HttpResponse<String>> next = claim(waiter, "across", 20);
                    Thread.sleep(150); // the claim has found nothing and waits
                    long at = System.nanoTime();
                    post(a, "across", Integer.toString(trial));
                    HttpResponse<String> woken = next.get(30, TimeUnit.SECONDS);
                    latencies.add((System.nanoTime() - at) / 1000);
                    assertEquals(201, woken.statusCode(), woken.body());
                }
                Collections.sort(latencies);
                System.out.printf(
                        "post on A -> claim waiting on %s answered: p50 %.1f ms, p99 %.1f ms (%d trials)%n",
                        waiter == a ? "A (same replica)" : "B (across replicas)",
                        latencies.get(latencies.size() / 2) / 1000.0,
                        latencies.get((int) Math.ceil(latencies.size() * 0.99) - 1) / 1000.0,
                        latencies.size());
            }

            if (MEASURE_IDLE_WAITERS) {
                idleWaiters(b, config);
            }
            stopWithWaiters(b);
        } finally {
            a.kill();
            b.kill();
        }
    }

    /** 1,000 claims waiting on an empty queue for 60 s, each asking again when its 20 s wait ends. */
    private void idleWaiters(Replica replica, Map<String, String> config) throws Exception {
        createQueue(replica, "idle");
        long before = commits(config);
        Thread.sleep(15_000);
        double baseline = (commits(config) - before) / 15.0;
        int clients = 1000;
        long end = System.nanoTime() + Duration.ofSeconds(70).toNanos();
        AtomicInteger answered = new AtomicInteger();
        AtomicInteger wrong = new AtomicInteger();
        List<CompletableFuture<Void>> loops = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            loops.add(loop(replica, end, answered, wrong));
        }
        Thread.sleep(10_000);
        long heapBefore = heapAfterGc(replica);
        long commitsBefore = commits(config);
        Thread.sleep(60_000);
        long commitsAfter = commits(config);
        long heapAfter = heapAfterGc(replica);
        CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        System.out.printf(
                "%d idle waiting claims for 60 s: %.1f transactions/s on the database (%.1f/s before, no waiter); "
                        + "%d claims answered 204; heap after GC %d KB -> %d KB%n",
                clients, (commitsAfter - commitsBefore) / 60.0, baseline, answered.get(), heapBefore, heapAfter);
        assertEquals(0, wrong.get(), "a waiting claim on the empty queue answered other than 204");
    }

    private CompletableFuture<Void> loop(Replica replica, long end, AtomicInteger answered, AtomicInteger wrong) {
        return claim(replica, "idle", 20).thenCompose(response -> {
            answered.incrementAndGet();
            if (response.statusCode() != 204) {
                wrong.incrementAndGet();
            }
            return System.nanoTime() < end
                    ? loop(replica, end, answered, wrong)
                    : CompletableFuture.completedFuture(null);
        });
    }

    /** SIGTERM with claims waiting: each answers 204 at once, and the replica stops without waiting for them. */
    private void stopWithWaiters(Replica replica) throws Exception {
        createQueue(replica, "stopping");
        List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
        for (int c = 0; c < 10; c++) {
            waiting.add(claim(replica, "stopping", 20));
        }
        Thread.sleep(1000);
        long stopped = System.nanoTime();
        replica.process().destroy();
        for (CompletableFuture<HttpResponse<String>> claim : waiting) {
            assertEquals(204, claim.get(5, TimeUnit.SECONDS).statusCode());
        }
        long answered = System.nanoTime();
        assertTrue(replica.process().waitFor(30, TimeUnit.SECONDS), "the replica did not stop within 30 s");
        System.out.printf(
                "SIGTERM with 10 waiting claims: answered 204 within %d ms, stopped after %d ms%n",
                (answered - stopped) / 1_000_000, (System.nanoTime() - stopped) / 1_000_000);
    }

    private static long commits(Map<String, String> config) throws Exception {
        String url = "jdbc:" + config.get("quarkus.datasource.reactive.url");
        try (Connection connection = DriverManager.getConnection(
                        url, config.get("quarkus.datasource.username"), config.get("quarkus.datasource.password"));
                Statement statement = connection.createStatement()) {
            try (ResultSet rows = statement.executeQuery(
                    "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    private static long heapAfterGc(Replica replica) throws IOException, InterruptedException {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        long pid = replica.process().pid();
        new ProcessBuilder(jcmd, Long.toString(pid), "GC.run").start().waitFor();
        Process info = new ProcessBuilder(jcmd, Long.toString(pid), "GC.heap_info").start();
        String out = new String(info.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        info.waitFor();
        long used = 0;
        Matcher heap = Pattern.compile("(?m)^\\s*(?!Metaspace|class space)[a-zA-Z- ]+?\\s+total \\d+K, used (\\d+)K")
                .matcher(out);
        while (heap.find()) {
            used += Long.parseLong(heap.group(1));
        }
        return used;
    }
}
