package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.PostgresResource;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Two Pigeon processes over one database, sampling every second: clients work through both at once, each counting what
 * its answers said. Once the queues are quiet for a sample period both replicas serve the same series, whose totals
 * are the clients' tallies and whose counts are what the queues hold; and a replica stopped with SIGTERM adds what it
 * counted last before it exits.
 */
class QueueMetricsAcrossReplicasIT {

    private static final Pattern SAMPLE = Pattern.compile("(?m)^(pigeon_queue_[a-z_]+\\{[^}]*\\}) ([0-9.eE+-]+)$");

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String project = "replicas-" + System.nanoTime();

    /** What the clients of one queue did, by their answers. */
    private static final class Tally {
        final AtomicLong posted = new AtomicLong();
        final AtomicLong claimed = new AtomicLong();
        final AtomicLong deleted = new AtomicLong();
        final AtomicLong emptyClaims = new AtomicLong();
    }

    @Test
    void bothReplicasServeTheSameExactSeries() throws Exception {
        Map<String, String> config = new HashMap<>(new PostgresResource().start());
        config.put("pigeon.queue-metrics.sample-period", "1s");
        Replica a = Replica.start("metrics-a", config, Replica.FIRST_JIT_TIER);
        Replica b = Replica.start("metrics-b", config, Replica.FIRST_JIT_TIER);
        try {
            a.awaitReady();
            b.awaitReady();
            Map<String, Tally> tallies = new TreeMap<>(Map.of("left", new Tally(), "right", new Tally()));
            for (String queue : tallies.keySet()) {
                assertEquals(201, send(a, "PUT", "/v2/queues/" + queue, "{}").statusCode());
            }
            ExecutorService clients = Executors.newFixedThreadPool(8);
            long deadline = System.nanoTime() + Duration.ofSeconds(6).toNanos();
            List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                Replica through = c % 2 == 0 ? a : b;
                String queue = c % 4 < 2 ? "left" : "right";
                boolean producer = c < 4;
                Tally tally = tallies.get(queue);
                running.add(clients.submit(() -> {
                    while (System.nanoTime() < deadline) {
                        if (producer) {
                            post(through, queue, 2);
                            tally.posted.addAndGet(2);
                        } else {
                            consume(through, queue, tally);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> client : running) {
                client.get(120, TimeUnit.SECONDS);
            }
            clients.shutdown();

            settled(a, tallies);
            Map<String, Double> seenByA = sameOnBoth(a, b);
            for (Map.Entry<String, Tally> entry : tallies.entrySet()) {
                String queue = entry.getKey();
                Tally tally = entry.getValue();
                System.out.printf(
                        "%s: %d posted, %d claimed, %d deleted, %d empty claims%n",
                        queue, tally.posted.get(), tally.claimed.get(), tally.deleted.get(), tally.emptyClaims.get());
                assertEquals(
                        (double) tally.claimed.get(), seenByA.get(key("pigeon_queue_messages_claimed_total", queue)));
                assertEquals(
                        (double) tally.emptyClaims.get(), seenByA.get(key("pigeon_queue_claims_empty_total", queue)));
                assertEquals(
                        (double) (tally.posted.get() - tally.deleted.get()),
                        seenByA.get(key("pigeon_queue_messages", queue, "state=\"ready\""))
                                + seenByA.get(key("pigeon_queue_messages", queue, "state=\"claimed\"")));
            }

            // What B counts just before it stops reaches the database: its last flush, or its last tick.
            for (int i = 0; i < 10; i++) {
                post(b, "left", 2);
            }
            tallies.get("left").posted.addAndGet(20);
            b.process().destroy();
            assertTrue(b.process().waitFor(30, TimeUnit.SECONDS), "replica B stops on SIGTERM");
            settled(a, tallies);
        } finally {
            a.kill();
            b.kill();
        }
    }

    private HttpResponse<String> send(Replica replica, String method, String path, String body) throws Exception {
        return replica.send(http, Duration.ofSeconds(30), project, method, path, body);
    }

    private void post(Replica replica, String queue, int count) throws Exception {
        StringBuilder messages = new StringBuilder();
        for (int i = 0; i < count; i++) {
            messages.append(i == 0 ? "" : ", ")
                    .append("{\"ttl\": 600, \"body\": ")
                    .append(i)
                    .append('}');
        }
        HttpResponse<String> posted =
                send(replica, "POST", "/v2/queues/" + queue + "/messages", "{\"messages\": [" + messages + "]}");
        assertEquals(201, posted.statusCode(), posted.body());
    }

    private void consume(Replica replica, String queue, Tally tally) throws Exception {
        HttpResponse<String> claimed =
                send(replica, "POST", "/v2/queues/" + queue + "/claims?limit=3", "{\"ttl\": 60, \"grace\": 60}");
        if (claimed.statusCode() == 204) {
            tally.emptyClaims.incrementAndGet();
            return;
        }
        assertEquals(201, claimed.statusCode(), claimed.body());
        Matcher href = Pattern.compile("\"href\": ?\"([^\"]+)\"").matcher(claimed.body());
        while (href.find()) {
            tally.claimed.incrementAndGet();
            HttpResponse<String> deleted = send(replica, "DELETE", href.group(1), null);
            assertEquals(204, deleted.statusCode(), deleted.body());
            tally.deleted.incrementAndGet();
        }
    }

    private String key(String name, String queue) {
        return key(name, queue, null);
    }

    private String key(String name, String queue, String extra) {
        return name + "{project=\"" + project + "\",queue=\"" + queue + "\"" + (extra == null ? "" : "," + extra) + "}";
    }

    /** Scrapes {@code replica} until its posted and deleted totals are the tallies; that scrape's series. */
    private Map<String, Double> settled(Replica replica, Map<String, Tally> tallies) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Map<String, Double> series = series(replica);
        while (System.nanoTime() < deadline) {
            Map<String, Double> now = series(replica);
            series = now;
            boolean settled = tallies.entrySet().stream()
                    .allMatch(e -> Double.valueOf(e.getValue().posted.get())
                                    .equals(now.get(key("pigeon_queue_messages_posted_total", e.getKey())))
                            && Double.valueOf(e.getValue().deleted.get())
                                    .equals(now.get(key("pigeon_queue_messages_deleted_total", e.getKey()))));
            if (settled) {
                // One more sample period: the counts are sampled after the last flush.
                Thread.sleep(2500);
                return series(replica);
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the series of " + replica.name() + " never settled: " + series);
    }

    /**
     * The series both replicas serve, read one after the other until no sample fell between the two reads (a sample
     * moves the oldest message's age).
     */
    private Map<String, Double> sameOnBoth(Replica a, Replica b) throws Exception {
        Map<String, Double> fromA = Map.of();
        Map<String, Double> fromB = Map.of();
        for (int attempt = 0; attempt < 20; attempt++) {
            fromA = series(a);
            fromB = series(b);
            if (fromA.equals(fromB)) {
                return fromA;
            }
            Thread.sleep(100);
        }
        assertEquals(fromA, fromB, "both replicas serve the same series");
        return fromA;
    }

    private Map<String, Double> series(Replica replica) throws Exception {
        HttpResponse<String> answer =
                replica.send(http, Duration.ofSeconds(30), null, "GET", "/q/metrics/queues?project=" + project, null);
        assertEquals(200, answer.statusCode(), answer.body());
        Map<String, Double> series = new TreeMap<>();
        Matcher sample = SAMPLE.matcher(answer.body());
        while (sample.find()) {
            series.put(sample.group(1), Double.parseDouble(sample.group(2)));
        }
        return series;
    }
}
