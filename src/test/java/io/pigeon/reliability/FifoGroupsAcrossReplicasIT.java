package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.PostgresResource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A "fifo" queue (issue 43, decision 0020) under real parallel clients on two Pigeon processes over one database:
 * 100 groups of 100 messages, 16 consumers (8 on each replica) with random work times that release 5 % of the messages
 * they hold (with the rest of their claim, delay 0). Per group, the order of the deletes is the order of the posts;
 * sampled every 10 ms from the database, no two live claims ever hold messages of one group; every message is deleted
 * exactly once. Two processes rather than one Quarkus test, so that the claims of one queue really come from two
 * replicas (the queue's lock is the database's, not a replica's). Then, on the same replicas, a claim waiting on one
 * for a group held by a consumer of the other is woken when that consumer deletes its message.
 */
class FifoGroupsAcrossReplicasIT {

    private static final int GROUPS = 100;
    private static final int PER_GROUP = 100;
    private static final int CONSUMERS_PER_REPLICA = 8;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String project = "fifo-groups-" + System.nanoTime();

    @Test
    void groupsAreDeletedInPostOrderAndNeverHeldByTwoClaims() throws Exception {
        Map<String, String> config = new PostgresResource().start();
        Replica a = Replica.start("fifo-a", config, Replica.FIRST_JIT_TIER);
        Replica b = Replica.start("fifo-b", config, Replica.FIRST_JIT_TIER);
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        ExecutorService pool = Executors.newFixedThreadPool(2 * CONSUMERS_PER_REPLICA + 1);
        AtomicBoolean done = new AtomicBoolean();
        try {
            a.awaitReady();
            b.awaitReady();
            String queue = "/v2/queues/ordered";
            assertEquals(
                    201,
                    a.send(http, timeout(), project, "PUT", queue, "{\"_ordering\": \"fifo\"}")
                            .statusCode());
            post(a, http, queue);

            Map<Integer, List<Integer>> deleted = new ConcurrentHashMap<>();
            AtomicInteger deletes = new AtomicInteger();
            AtomicInteger releases = new AtomicInteger();
            List<String> overlaps = Collections.synchronizedList(new ArrayList<>());
            AtomicLong samples = new AtomicLong();
            Future<?> sampler = pool.submit(() -> {
                sample(config, overlaps, samples, done);
                return null;
            });
            List<Future<?>> consumers = new ArrayList<>();
            for (int i = 0; i < 2 * CONSUMERS_PER_REPLICA; i++) {
                Replica replica = i % 2 == 0 ? a : b;
                consumers.add(pool.submit(() -> {
                    consume(replica, http, queue, deleted, deletes, releases, done);
                    return null;
                }));
            }
            for (Future<?> consumer : consumers) {
                consumer.get();
            }
            done.set(true);
            sampler.get();

            System.out.printf(
                    "fifo across replicas: %d deletes, %d releases, %d samples of live claims%n",
                    deletes.get(), releases.get(), samples.get());
            assertTrue(overlaps.isEmpty(), "groups held by two live claims at once: " + overlaps);
            assertTrue(samples.get() > 100, "the database was sampled while consumers ran: " + samples.get());
            assertTrue(releases.get() > 0, "some messages were released");
            assertEquals(GROUPS * PER_GROUP, deletes.get(), "every message deleted exactly once");
            List<Integer> inOrder = new ArrayList<>();
            for (int s = 0; s < PER_GROUP; s++) {
                inOrder.add(s);
            }
            for (int g = 0; g < GROUPS; g++) {
                assertEquals(inOrder, deleted.get(g), "group " + g + " deleted in post order, each once");
            }
            HttpResponse<String> stats = a.send(http, timeout(), project, "GET", queue + "/stats", null);
            assertEquals(
                    0,
                    JSON.readTree(stats.body()).path("messages").path("total").asInt(-1));

            wakeAcrossReplicas(a, b, http);
        } finally {
            done.set(true);
            pool.shutdownNow();
            a.kill();
            b.kill();
        }
    }

    /**
     * A claim waiting on replica B for a fifo group whose only other message replica A's consumer holds is woken when
     * that consumer deletes its message through replica A: the delete's notice reaches B (NOTIFY), not the end of B's
     * 20 s wait. B settles 2 s first: a new line tries its waiters once more 500 ms after it is marked, which would
     * find the group free by itself.
     */
    private void wakeAcrossReplicas(Replica a, Replica b, HttpClient http) throws Exception {
        String queue = "/v2/queues/woken";
        assertEquals(
                201,
                a.send(http, timeout(), project, "PUT", queue, "{\"_ordering\": \"fifo\"}")
                        .statusCode());
        HttpResponse<String> posted = a.send(
                http,
                timeout(),
                project,
                "POST",
                queue + "/messages",
                "{\"messages\": [{\"ttl\": 3600, \"group\": \"g\", \"body\": \"m1\"},"
                        + " {\"ttl\": 3600, \"group\": \"g\", \"body\": \"m2\"}]}");
        assertEquals(201, posted.statusCode(), posted.body());
        HttpResponse<String> held =
                a.send(http, timeout(), project, "POST", queue + "/claims?limit=1", "{\"ttl\": 300, \"grace\": 60}");
        assertEquals(201, held.statusCode(), held.body());
        JsonNode first = JSON.readTree(held.body()).path("messages").get(0);
        assertEquals("m1", first.path("body").asText());
        CompletableFuture<HttpResponse<String>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return b.send(
                        http,
                        timeout(),
                        project,
                        "POST",
                        queue + "/claims?limit=1",
                        "{\"ttl\": 300, \"grace\": 60, \"wait\": 20}");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(3000); // B has tried, found the group held, and settled (the verdict does not depend on it)
        long deleted = System.nanoTime();
        HttpResponse<String> gone =
                a.send(http, timeout(), project, "DELETE", first.path("href").asText(), null);
        assertEquals(204, gone.statusCode(), gone.body());
        HttpResponse<String> woken = waiting.get(40, TimeUnit.SECONDS);
        long millis = (System.nanoTime() - deleted) / 1_000_000;
        assertEquals(201, woken.statusCode(), "B's wait ended empty after " + millis + " ms: " + woken.body());
        assertEquals(
                "m2",
                JSON.readTree(woken.body()).path("messages").get(0).path("body").asText());
        System.out.printf("fifo wake across replicas: B answered %d ms after A's delete%n", millis);
        // Woken by the delete, not answered at the end of its 20 s wait (a semantic bound, not a speed goal).
        assertTrue(millis < 10_000, "B woken " + millis + " ms after A's delete");
    }

    private static Duration timeout() {
        return Duration.ofSeconds(60);
    }

    /** Posts message s of every group before message s+1 of any, ten groups a post: each group's post order is s. */
    private void post(Replica replica, HttpClient http, String queue) throws Exception {
        for (int s = 0; s < PER_GROUP; s++) {
            for (int first = 0; first < GROUPS; first += 10) {
                StringBuilder document = new StringBuilder("{\"messages\": [");
                for (int g = first; g < first + 10; g++) {
                    document.append(g == first ? "" : ", ")
                            .append("{\"ttl\": 3600, \"group\": \"g")
                            .append(g)
                            .append("\", \"body\": {\"g\": ")
                            .append(g)
                            .append(", \"s\": ")
                            .append(s)
                            .append("}}");
                }
                document.append("]}");
                HttpResponse<String> posted =
                        replica.send(http, timeout(), project, "POST", queue + "/messages", document.toString());
                assertEquals(201, posted.statusCode(), posted.body());
            }
        }
    }

    private void consume(
            Replica replica,
            HttpClient http,
            String queue,
            Map<Integer, List<Integer>> deleted,
            AtomicInteger deletes,
            AtomicInteger releases,
            AtomicBoolean done)
            throws Exception {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (deletes.get() < GROUPS * PER_GROUP && !done.get()) {
            assertTrue(System.nanoTime() < deadline, "the queue drained within 10 minutes");
            int limit = 1 + random.nextInt(5);
            HttpResponse<String> claim = replica.send(
                    http,
                    timeout(),
                    project,
                    "POST",
                    queue + "/claims?limit=" + limit,
                    "{\"ttl\": 300, \"grace\": 60}");
            if (claim.statusCode() == 204) {
                Thread.sleep(10);
                continue;
            }
            assertEquals(201, claim.statusCode(), claim.body());
            String location = URI.create(claim.headers().firstValue("Location").orElseThrow())
                    .getPath();
            for (JsonNode message : JSON.readTree(claim.body()).path("messages")) {
                Thread.sleep(random.nextInt(4));
                if (random.nextInt(100) < 5) {
                    // Released with the rest of the claim, delay 0: the group's next claim starts from here.
                    HttpResponse<String> released = replica.send(http, timeout(), project, "DELETE", location, null);
                    assertEquals(204, released.statusCode(), released.body());
                    releases.incrementAndGet();
                    break;
                }
                // Recorded before the delete is sent: while this claim holds the message, no other claim can hold a
                // message of its group, so nobody records for the group until this delete has committed. Recorded
                // after the answer instead, a consumer that claims the group's next message the moment this delete
                // commits could record it first (seen once in 10,000 on a loaded machine): the client's clock, not
                // the queue's order.
                JsonNode body = message.path("body");
                deleted.computeIfAbsent(body.path("g").asInt(), g -> Collections.synchronizedList(new ArrayList<>()))
                        .add(body.path("s").asInt());
                String href = message.path("href").asText();
                HttpResponse<String> gone = replica.send(http, timeout(), project, "DELETE", href, null);
                assertEquals(204, gone.statusCode(), href + ": " + gone.body());
                deletes.incrementAndGet();
            }
        }
    }

    /** Every 10 ms, the groups whose messages more than one live claim holds, in one statement (one snapshot). */
    private void sample(Map<String, String> config, List<String> overlaps, AtomicLong samples, AtomicBoolean done)
            throws Exception {
        URI server = URI.create(config.get("quarkus.datasource.reactive.url"));
        String jdbc = "jdbc:postgresql://" + server.getHost() + ":" + server.getPort() + server.getPath();
        try (Connection connection = DriverManager.getConnection(
                        jdbc, config.get("quarkus.datasource.username"), config.get("quarkus.datasource.password"));
                PreparedStatement overlapping = connection.prepareStatement(
                        """
                        SELECT m.message_group, count(DISTINCT m.claim_id) AS claims
                        FROM queues q JOIN messages m ON m.queue_id = q.id
                        WHERE q.project = ? AND m.claim_id IS NOT NULL AND m.claim_expires_at > now()
                        GROUP BY m.message_group
                        HAVING count(DISTINCT m.claim_id) > 1""")) {
            overlapping.setString(1, project);
            while (!done.get()) {
                try (ResultSet rows = overlapping.executeQuery()) {
                    while (rows.next()) {
                        overlaps.add(rows.getString(1) + " x" + rows.getInt(2));
                    }
                }
                samples.incrementAndGet();
                Thread.sleep(10);
            }
        }
    }
}
