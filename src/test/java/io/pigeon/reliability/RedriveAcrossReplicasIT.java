package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.PostgresResource;
import io.pigeon.testing.Slow;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Dead-letter redrive under load, over two Pigeon processes (the packaged application) on one database. 4,000
 * messages of four queues are dead-lettered into one queue; a redrive of it at 200 messages per second is started on
 * replica A, which runs it; while it runs, consumers on replica B take every message as it comes back (claim, record,
 * delete), and other clients post and consume on another queue through both replicas. When about 40 % has moved, A is
 * killed with SIGKILL: B takes the task over once its lease lapses. Verdict: the task ends done with 4,000 moved and
 * none skipped; the consumers got every dead-lettered message exactly once (each id once, with its body, from the
 * queue it came from) and nothing else; the dead-letter queue ends empty; and the rate seen while A ran it and while B
 * ran it is within 10 % of the rate asked for. The rates, the time B took to take over and the overall rate are
 * printed.
 *
 * <p>{@code -Dredrive.messages} (default 4,000, a multiple of 4) and {@code -Dredrive.rate} (default 200) change the
 * figures.
 */
@Slow
class RedriveAcrossReplicasIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> SOURCES = List.of("orders", "invoices", "mails", "reports");
    private static final String DLQ = "dead";
    private static final int CONSUMERS = 4;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String project = "redrive-" + System.nanoTime();

    /** One observation of the task, by the test's clock. */
    private record Seen(long atNanos, long moved, String state) {}

    @Test
    void aRedriveSurvivesTheDeathOfItsReplicaMovesEveryMessageOnceAndKeepsItsRate() throws Exception {
        int messages = Integer.getInteger("redrive.messages", 4000);
        int rate = Integer.getInteger("redrive.rate", 200);
        Map<String, String> config = new HashMap<>(new PostgresResource().start());
        config.put("pigeon.redrive.lease", "3s");
        config.put("pigeon.redrive.poll-interval", "1s");
        config.put("pigeon.sweeper.interval", "1s");
        Replica a = Replica.start("redrive-a", config);
        Replica b = Replica.start("redrive-b", config);
        ExecutorService workers = Executors.newFixedThreadPool(CONSUMERS + 4);
        AtomicBoolean stop = new AtomicBoolean();
        try {
            a.awaitReady();
            b.awaitReady();

            // 1. Every source queue's messages, claimed as often as its rule allows, released, dead-lettered.
            Map<String, String> posted = new ConcurrentHashMap<>();
            for (String source : SOURCES) {
                expect(
                        send(
                                b,
                                "PUT",
                                "/v2/queues/" + source,
                                "{\"_max_claim_count\": 1, \"_dead_letter_queue\": \"" + DLQ + "\"}"),
                        201);
                post(b, source, messages / SOURCES.size());
            }
            List<Future<?>> releases = new ArrayList<>();
            for (String source : SOURCES) {
                releases.add(workers.submit(() -> {
                    claimAndRelease(SOURCES.indexOf(source) % 2 == 0 ? a : b, source);
                    return null;
                }));
            }
            for (Future<?> release : releases) {
                release.get(5, TimeUnit.MINUTES);
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (total(b, DLQ) < messages) {
                assertTrue(System.nanoTime() < deadline, "dead-lettered: " + total(b, DLQ) + " of " + messages);
                Thread.sleep(200);
            }
            Map<String, String> dead = list(b, DLQ);
            assertEquals(messages, dead.size(), "dead-lettered messages listed");

            // 2. Load: posts and consumption of another queue through both replicas, all along.
            AtomicLong loadMessages = new AtomicLong();
            List<Future<?>> load = new ArrayList<>();
            for (Replica replica : List.of(a, b)) {
                load.add(workers.submit(() -> {
                    loadLoop(replica, stop, loadMessages);
                    return null;
                }));
            }

            // 3. Consumers on B take every message as it comes back to its queue.
            Map<String, String> consumed = new ConcurrentHashMap<>();
            Map<String, String> consumedFrom = new ConcurrentHashMap<>();
            AtomicInteger duplicates = new AtomicInteger();
            AtomicBoolean drained = new AtomicBoolean();
            List<Future<?>> consumers = new ArrayList<>();
            for (int c = 0; c < CONSUMERS; c++) {
                String source = SOURCES.get(c % SOURCES.size());
                consumers.add(workers.submit(() -> {
                    consume(b, source, drained, consumed, consumedFrom, duplicates);
                    return null;
                }));
            }

            // 4. The redrive, started on A (so A runs it), watched through B; A killed at about 40 %.
            HttpResponse<String> started =
                    send(a, "POST", "/v2/queues/" + DLQ + "/redrive", "{\"rate\": " + rate + "}");
            expect(started, 201);
            String href = started.headers().firstValue("Location").orElseThrow();
            List<Seen> seen = new ArrayList<>();
            long killedAt = -1;
            while (true) {
                JsonNode task =
                        JSON.readTree(expect(send(b, "GET", href, null), 200).body());
                Seen now = new Seen(
                        System.nanoTime(),
                        task.get("moved").asLong(),
                        task.get("state").asText());
                seen.add(now);
                if (killedAt < 0 && now.moved() >= messages * 2L / 5) {
                    a.kill();
                    killedAt = System.nanoTime();
                    System.out.printf("replica A killed with %d of %d moved%n", now.moved(), messages);
                }
                if (!now.state().equals("running")) {
                    break;
                }
                assertTrue(
                        System.nanoTime() - seen.get(0).atNanos()
                                < Duration.ofSeconds(messages / rate * 4L + 60).toNanos(),
                        "the task still runs: " + task);
                Thread.sleep(100);
            }
            JsonNode ended =
                    JSON.readTree(expect(send(b, "GET", href, null), 200).body());
            assertEquals("done", ended.get("state").asText(), ended.toString());
            assertEquals(messages, ended.get("moved").asLong(), ended.toString());
            assertEquals(0, ended.get("skipped").asLong(), ended.toString());
            assertTrue(killedAt > 0, "A was killed while the task ran");

            // 5. Every message consumed once, with its body, from its own queue; the dead-letter queue empty.
            deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (consumed.size() < messages && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            drained.set(true);
            for (Future<?> consumer : consumers) {
                consumer.get(60, TimeUnit.SECONDS);
            }
            stop.set(true);
            for (Future<?> loader : load) {
                loader.get(60, TimeUnit.SECONDS);
            }
            assertEquals(0, duplicates.get(), "messages consumed twice");
            assertEquals(new TreeMap<>(dead), new TreeMap<>(consumed), "consumed: every dead-lettered id, its body");
            for (Map.Entry<String, String> message : consumed.entrySet()) {
                assertTrue(
                        message.getValue().contains("\"" + consumedFrom.get(message.getKey()) + "-"),
                        "message " + message.getKey() + " " + message.getValue() + " came back to "
                                + consumedFrom.get(message.getKey()));
            }
            assertEquals(0, total(b, DLQ), "left in the dead-letter queue");
            for (String source : SOURCES) {
                assertEquals(0, total(b, source), "left in " + source);
            }

            // 6. The rate, while A ran it (to the kill) and while B ran it (from its first batch to the end).
            long kill = killedAt;
            Seen lastOfA = lastBefore(seen, kill);
            double rateA = rateBetween(seen.get(0), lastOfA);
            Seen firstOfB = seen.stream()
                    .filter(s -> s.atNanos() > kill && s.moved() > lastOfA.moved())
                    .findFirst()
                    .orElseThrow();
            Seen allMoved =
                    seen.stream().filter(s -> s.moved() == messages).findFirst().orElseThrow();
            // From B's last observation without progress: its first batch came after it.
            double rateB = rateBetween(lastBefore(seen, firstOfB.atNanos() - 1), allMoved);
            double overall = messages / ((allMoved.atNanos() - seen.get(0).atNanos()) / 1e9);
            System.out.printf(
                    "redrive of %d messages at %d/s: A ran it at %.1f/s, B took over %.1f s after the kill and ran it at"
                            + " %.1f/s; %.1f/s overall, takeover included; %d other messages posted and consumed%n",
                    messages, rate, rateA, (firstOfB.atNanos() - killedAt) / 1e9, rateB, overall, loadMessages.get());
            assertTrue(Math.abs(rateA - rate) <= rate * 0.1, "rate on A: " + rateA);
            assertTrue(Math.abs(rateB - rate) <= rate * 0.1, "rate on B: " + rateB);
        } finally {
            stop.set(true);
            workers.shutdownNow();
            a.kill();
            b.kill();
        }
    }

    /** Messages moved per second between the observations {@code first} and {@code last}. */
    private static double rateBetween(Seen first, Seen last) {
        return (last.moved() - first.moved()) / ((last.atNanos() - first.atNanos()) / 1e9);
    }

    private static Seen lastBefore(List<Seen> seen, long at) {
        Seen last = seen.get(0);
        for (Seen s : seen) {
            if (s.atNanos() <= at) {
                last = s;
            }
        }
        return last;
    }

    private void post(Replica replica, String queue, int count) throws Exception {
        for (int first = 0; first < count; first += 20) {
            StringBuilder body = new StringBuilder("{\"messages\": [");
            for (int n = first; n < Math.min(count, first + 20); n++) {
                body.append(n == first ? "" : ",")
                        .append("{\"ttl\": 3600, \"body\": \"")
                        .append(queue)
                        .append('-')
                        .append(n)
                        .append("\"}");
            }
            expect(
                    send(
                            replica,
                            "POST",
                            "/v2/queues/" + queue + "/messages",
                            body.append("]}").toString()),
                    201);
        }
    }

    /** Claims every message of the queue once and releases it, so that the sweeper dead-letters it. */
    private void claimAndRelease(Replica replica, String queue) throws Exception {
        while (true) {
            HttpResponse<String> claimed =
                    send(replica, "POST", "/v2/queues/" + queue + "/claims?limit=20", "{\"ttl\": 60}");
            if (claimed.statusCode() == 204) {
                return;
            }
            expect(claimed, 201);
            List<String> ids = new ArrayList<>();
            JSON.readTree(claimed.body())
                    .get("messages")
                    .forEach(m -> ids.add('"' + m.get("id").asText() + '"'));
            String location = claimed.headers().firstValue("Location").orElseThrow();
            expect(send(replica, "POST", location + "/release", "{\"ids\": [" + String.join(",", ids) + "]}"), 204);
        }
    }

    /** The queue's messages, id to body, as a client lists them. */
    private Map<String, String> list(Replica replica, String queue) throws Exception {
        Map<String, String> found = new TreeMap<>();
        String next = "/v2/queues/" + queue + "/messages?echo=true&include_claimed=true&limit=20";
        while (true) {
            JsonNode page =
                    JSON.readTree(expect(send(replica, "GET", next, null), 200).body());
            if (page.get("messages").isEmpty()) {
                return found;
            }
            String last = null;
            for (JsonNode message : page.get("messages")) {
                found.put(message.get("id").asText(), message.get("body").toString());
                last = message.get("id").asText();
            }
            next = "/v2/queues/" + queue + "/messages?echo=true&include_claimed=true&limit=20&marker=" + last;
        }
    }

    private long total(Replica replica, String queue) throws Exception {
        return JSON.readTree(expect(send(replica, "GET", "/v2/queues/" + queue + "/stats", null), 200)
                        .body())
                .get("messages")
                .get("total")
                .asLong();
    }

    /** Claims, records and deletes the queue's messages until told the redrive is drained. */
    private void consume(
            Replica replica,
            String queue,
            AtomicBoolean drained,
            Map<String, String> consumed,
            Map<String, String> consumedFrom,
            AtomicInteger duplicates)
            throws Exception {
        while (!drained.get()) {
            HttpResponse<String> claimed =
                    send(replica, "POST", "/v2/queues/" + queue + "/claims?limit=20", "{\"ttl\": 300, \"wait\": 1}");
            if (claimed.statusCode() == 204) {
                continue;
            }
            expect(claimed, 201);
            for (JsonNode message : JSON.readTree(claimed.body()).get("messages")) {
                String id = message.get("id").asText();
                if (consumed.putIfAbsent(id, message.get("body").toString()) != null) {
                    duplicates.incrementAndGet();
                }
                consumedFrom.put(id, queue);
                expect(send(replica, "DELETE", message.get("href").asText(), null), 204);
            }
        }
    }

    /** Posts ten messages and takes ten, again and again, on a queue of its own; errors after the kill are expected. */
    private void loadLoop(Replica replica, AtomicBoolean stop, AtomicLong done) {
        String queue = "busy-" + replica.name();
        String ten =
                "{\"messages\": [" + String.join(",", Collections.nCopies(10, "{\"ttl\": 300, \"body\": 1}")) + "]}";
        while (!stop.get() && replica.alive()) {
            try {
                send(replica, "POST", "/v2/queues/" + queue + "/messages", ten);
                HttpResponse<String> popped = send(replica, "DELETE", "/v2/queues/" + queue + "/messages?pop=10", null);
                if (popped.statusCode() == 200) {
                    done.addAndGet(JSON.readTree(popped.body()).get("messages").size());
                }
            } catch (IOException | InterruptedException e) {
                return; // the replica was killed
            }
        }
    }

    private HttpResponse<String> send(Replica replica, String method, String path, String body)
            throws IOException, InterruptedException {
        return replica.send(http, Duration.ofSeconds(30), project, method, path, body);
    }

    private static HttpResponse<String> expect(HttpResponse<String> response, int status) {
        assertEquals(status, response.statusCode(), response.body());
        return response;
    }
}
