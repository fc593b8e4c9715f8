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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
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
 * replicas (the queue's lock is the database's, not a replica's).
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
        } finally {
            done.set(true);
            pool.shutdownNow();
            a.kill();
            b.kill();
        }
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
