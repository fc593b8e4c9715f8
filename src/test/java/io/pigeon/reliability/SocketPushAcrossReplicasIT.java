package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.PostgresResource;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.WebSocketHandshakeException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two Pigeon processes over one database. A websocket subscribed on replica B and one on replica A receive each
 * message posted over HTTP on A, B's through PostgreSQL's NOTIFY: within one second, latencies printed. Then B is
 * killed with SIGKILL: its subscription, left behind, is swept once its lease runs out, and A's stays.
 */
class SocketPushAcrossReplicasIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int POSTS = 200;
    private static final String QUEUE = "pushed";

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final String project = "pushes-" + System.nanoTime();

    @Test
    void aSocketOnAnotherReplicaReceivesPostsAndADeadReplicasSubscriptionIsSwept() throws Exception {
        Map<String, String> config = new HashMap<>(new PostgresResource().start());
        config.put("pigeon.socket-subscriptions.lease", "3s");
        config.put("pigeon.socket-subscriptions.renewal", "1s");
        config.put("pigeon.sweeper.interval", "1s");
        Replica a = Replica.start("a", config, Replica.FIRST_JIT_TIER);
        Replica b = Replica.start("b", config, Replica.FIRST_JIT_TIER);
        try {
            a.awaitReady();
            b.awaitReady();
            SocketFrames onA = SocketFrames.open(a, http);
            SocketFrames onB = SocketFrames.open(b, http);
            assertEquals(
                    201, onA.call(subscribe()).path("headers").path("status").asInt());
            assertEquals(
                    201, onB.call(subscribe()).path("headers").path("status").asInt());

            List<Long> sameReplica = new ArrayList<>();
            List<Long> acrossReplicas = new ArrayList<>();
            for (int n = 0; n < POSTS; n++) {
                long sent = System.nanoTime();
                HttpResponse<String> posted = a.send(
                        http,
                        Duration.ofSeconds(10),
                        project,
                        "POST",
                        "/v2/queues/" + QUEUE + "/messages",
                        "{\"messages\": [{\"ttl\": 300, \"body\": {\"n\": " + n + "}}]}");
                assertEquals(201, posted.statusCode(), posted.body());
                JsonNode fromA = onA.next(Duration.ofSeconds(1));
                long atA = System.nanoTime();
                JsonNode fromB = onB.next(Duration.ofSeconds(1));
                long atB = System.nanoTime();
                assertNotNull(fromA, "no push on replica A within 1 s for message " + n);
                assertNotNull(fromB, "no push on replica B within 1 s for message " + n);
                for (JsonNode pushed : List.of(fromA, fromB)) {
                    assertEquals("Notification", pushed.path("Message_Type").asText(), pushed.toString());
                    assertEquals(QUEUE, pushed.path("queue_name").asText(), pushed.toString());
                    assertEquals(n, pushed.path("body").path("n").asInt(), pushed.toString());
                }
                sameReplica.add(atA - sent);
                acrossReplicas.add(atB - sent);
            }
            System.out.printf(
                    "post over HTTP on A -> frame on a socket: same replica p50 %.2f ms p99 %.2f ms; "
                            + "across replicas p50 %.2f ms p99 %.2f ms (%d posts)%n",
                    percentile(sameReplica, 50),
                    percentile(sameReplica, 99),
                    percentile(acrossReplicas, 50),
                    percentile(acrossReplicas, 99),
                    POSTS);

            b.kill();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            int left;
            do {
                Thread.sleep(500);
                left = subscriptions(a).size();
            } while (left > 1 && System.nanoTime() < deadline);
            assertEquals(1, left, "the dead replica's socket subscription is still there");
            // A's socket still receives: its subscription is the one that stayed.
            a.send(
                    http,
                    Duration.ofSeconds(10),
                    project,
                    "POST",
                    "/v2/queues/" + QUEUE + "/messages",
                    "{\"messages\": [{\"ttl\": 300, \"body\": \"after\"}]}");
            JsonNode after = onA.next(Duration.ofSeconds(1));
            assertNotNull(after);
            assertEquals("after", after.path("body").asText());
            onA.close();
        } finally {
            a.kill();
            b.kill();
        }
    }

    /**
     * SIGTERM on a replica that has served sockets: the open one is closed at once with 1001, a new upgrade is refused
     * (503), and the replica stops after its shutdown delay (5 s) instead of waiting its whole shutdown timeout (set
     * to 60 s here) for the requests that were upgraded to sockets and never "end".
     */
    @Test
    void aStoppingReplicaClosesItsSocketsAndDoesNotWaitForThem() throws Exception {
        Map<String, String> config = new HashMap<>(new PostgresResource().start());
        config.put("quarkus.shutdown.timeout", "60s");
        Replica replica = Replica.start("stopping", config, Replica.FIRST_JIT_TIER);
        try {
            replica.awaitReady();
            SocketFrames closedBefore = SocketFrames.open(replica, http);
            closedBefore.call(list());
            closedBefore.close();
            SocketFrames open = SocketFrames.open(replica, http);
            open.call(list());

            long stopped = System.nanoTime();
            replica.process().destroy();
            assertEquals(1001, open.closedWith().get(5, TimeUnit.SECONDS), "the open socket's close code");
            ExecutionException refused = assertThrows(ExecutionException.class, () -> SocketFrames.open(replica, http));
            assertTrue(
                    refused.getCause() instanceof WebSocketHandshakeException handshake
                            && handshake.getResponse().statusCode() == 503,
                    "an upgrade during shutdown: " + refused.getCause());
            assertTrue(replica.process().waitFor(30, TimeUnit.SECONDS), "the replica did not stop within 30 s");
            double seconds = (System.nanoTime() - stopped) / 1e9;
            String log = Files.readString(replica.log());
            assertTrue(
                    !log.contains("Timed out waiting for graceful shutdown") && !log.contains("Error Occurred After"),
                    "shutdown waited for its timeout or failed after it:\n" + log);
            System.out.printf("a replica that served 2 sockets stopped %.1f s after SIGTERM%n", seconds);
        } finally {
            replica.kill();
        }
    }

    private String list() {
        return "{\"action\": \"queue_list\", \"headers\": {\"Client-ID\": \"" + UUID.randomUUID()
                + "\", \"X-Project-ID\": \"" + project + "\"}}";
    }

    private String subscribe() {
        return "{\"action\": \"subscription_create\", \"headers\": {\"Client-ID\": \"" + UUID.randomUUID()
                + "\", \"X-Project-ID\": \"" + project + "\"}, \"body\": {\"queue_name\": \"" + QUEUE
                + "\", \"ttl\": 3600}}";
    }

    private List<JsonNode> subscriptions(Replica replica) throws Exception {
        HttpResponse<String> listed = replica.send(
                http, Duration.ofSeconds(10), project, "GET", "/v2/queues/" + QUEUE + "/subscriptions", null);
        assertEquals(200, listed.statusCode(), listed.body());
        List<JsonNode> found = new ArrayList<>();
        JSON.readTree(listed.body()).path("subscriptions").forEach(found::add);
        return found;
    }

    private static double percentile(List<Long> nanos, int percent) {
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, index)) / 1_000_000.0;
    }
}
