package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Slow;
import io.pigeon.testing.TcpProxy;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A websocket's subscription outlives a database outage longer than its lease. Two Pigeon processes on one database:
 * replica A (which holds the sockets) reaches it through a TCP proxy, replica B straight. Leases are 3 s, renewed every
 * second, swept every second: cutting the proxy for longer lets B's sweeper delete A's rows while A and its sockets
 * are alive, as a failover does to every replica's rows once the database is back (CloudNativePG takes 40 to 80 s).
 *
 * <p>Verdict: after the outage the subscription is there again with its id, and the socket receives, in order and
 * once each, a post made while its row was gone and a post made after; a subscription its client deleted stays
 * deleted through an outage; a queue deleted during the outage (and made again under its name) ends its subscription.
 */
@Slow
class SocketSubscriptionOutageIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration LEASE = Duration.ofSeconds(3);
    /** Far above the seconds a sweep, a reconnect and a renewal take, even on a loaded machine. */
    private static final Duration BOUND = Duration.ofSeconds(90);

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static EmbeddedPostgres postgres;
    private static TcpProxy service;
    private static Replica a;
    private static Replica b;

    private final String project = "outage-" + System.nanoTime();

    @BeforeAll
    static void start() throws Exception {
        postgres = EmbeddedPostgres.builder()
                .setDataDirectory(Files.createTempDirectory("pigeon-outage-pg"))
                .setCleanDataDirectory(true)
                .setServerConfig("max_connections", "100")
                .start();
        service = TcpProxy.start(postgres.getPort());
        Map<String, String> common = new HashMap<>();
        common.put("quarkus.datasource.username", "postgres");
        common.put("quarkus.datasource.password", "postgres");
        common.put("pigeon.socket-subscriptions.lease", LEASE.toSeconds() + "s");
        common.put("pigeon.socket-subscriptions.renewal", "1s");
        common.put("pigeon.sweeper.interval", "1s");
        Map<String, String> throughProxy = new HashMap<>(common);
        throughProxy.put("quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + service.port() + "/postgres");
        Map<String, String> straight = new HashMap<>(common);
        straight.put("quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + postgres.getPort() + "/postgres");
        a = Replica.start("outage-a", throughProxy, Replica.FIRST_JIT_TIER);
        b = Replica.start("outage-b", straight, Replica.FIRST_JIT_TIER);
        a.awaitReady();
        b.awaitReady();
    }

    @AfterAll
    static void stop() throws Exception {
        if (a != null) {
            a.kill();
        }
        if (b != null) {
            b.kill();
        }
        if (service != null) {
            service.close();
        }
        if (postgres != null) {
            postgres.close();
        }
    }

    @Test
    void aSubscriptionSweptDuringAnOutageComesBackAndMissesNoPost() throws Exception {
        String queue = "swept";
        assertEquals(201, send("PUT", "/v2/queues/" + queue, "{}").statusCode());
        SocketFrames socket = SocketFrames.open(a, HTTP);
        String id = subscribe(socket, queue);
        post(queue, "before");
        assertEquals(List.of("before"), pushed(socket, 1));

        cutA();
        try {
            Eventually.await("A's subscription swept by B", BOUND, () -> subscriptionIds(queue)
                    .isEmpty());
            post(queue, "while-gone");
        } finally {
            service.repoint(postgres.getPort());
        }
        Eventually.await("the subscription stored again with its id", BOUND, () -> subscriptionIds(queue)
                .equals(List.of(id)));
        post(queue, "after");

        assertEquals(List.of("while-gone", "after"), pushed(socket, 2), "what the socket got after the outage");
        assertNull(socket.next(Duration.ofSeconds(3)), "a post pushed twice");
        assertTrue(!socket.closedWith().isDone(), "the socket was closed");
        socket.close();
    }

    @Test
    void aSubscriptionItsClientDeletedStaysDeletedThroughAnOutage() throws Exception {
        String queue = "deleted-by-client";
        String control = "control-" + queue;
        SocketFrames socket = SocketFrames.open(a, HTTP);
        String id = subscribe(socket, queue);
        subscribe(socket, control);
        JsonNode deleted = socket.call(frame(
                "subscription_delete", "{\"queue_name\": \"" + queue + "\", \"subscription_id\": \"" + id + "\"}"));
        assertEquals(204, deleted.path("headers").path("status").asInt(), deleted.toString());

        outageUntilSwept(control);
        post(control, "control");
        assertEquals(List.of("control"), pushed(socket, 1), "the other subscription came back");
        post(queue, "not-for-the-socket");
        assertNull(socket.next(Duration.ofSeconds(3)), "the deleted subscription was pushed to");
        assertEquals(List.of(), subscriptionIds(queue), "the deleted subscription is back");
        socket.close();
    }

    @Test
    void aQueueDeletedDuringTheOutageEndsItsSubscription() throws Exception {
        String queue = "deleted-queue";
        String control = "control-" + queue;
        assertEquals(201, send("PUT", "/v2/queues/" + queue, "{}").statusCode());
        SocketFrames socket = SocketFrames.open(a, HTTP);
        subscribe(socket, queue);
        subscribe(socket, control);

        cutA();
        try {
            Eventually.await("A's subscriptions swept by B", BOUND, () -> subscriptionIds(control)
                    .isEmpty());
            assertEquals(204, send("DELETE", "/v2/queues/" + queue, null).statusCode());
            // Made again under the same name: another queue, which the socket never subscribed to.
            assertEquals(201, send("PUT", "/v2/queues/" + queue, "{}").statusCode());
        } finally {
            service.repoint(postgres.getPort());
        }
        Eventually.await(
                "the control subscription stored again",
                BOUND,
                () -> subscriptionIds(control).size() == 1);
        post(control, "control");
        assertEquals(List.of("control"), pushed(socket, 1), "the control subscription's post");
        post(queue, "to-the-new-queue");
        assertNull(socket.next(Duration.ofSeconds(3)), "a subscription to the deleted queue was pushed to");
        assertEquals(List.of(), subscriptionIds(queue), "a subscription came back on the queue made again");
        socket.close();
    }

    /**
     * The harsher failover: A's connections to the database (its pool's and the one that listens for notices) go
     * silent without being closed, as when the old primary's address stops answering, while new connections reach the
     * database. A renewal stuck on such a connection must not hold the later ones, and the silent listening connection
     * must be noticed and made again: the socket gets the posts made since.
     */
    @Test
    void aReplicaWhoseConnectionsGoSilentComesBack() throws Exception {
        String queue = "silent";
        assertEquals(201, send("PUT", "/v2/queues/" + queue, "{}").statusCode());
        SocketFrames socket = SocketFrames.open(a, HTTP);
        String id = subscribe(socket, queue);
        post(queue, "before");
        assertEquals(List.of("before"), pushed(socket, 1));

        service.freezeAll();
        post(queue, "frozen");
        assertEquals(List.of("frozen"), pushed(socket, 1), "what the socket got after its connections went silent");
        Eventually.await("the subscription is A's still", BOUND, () -> subscriptionIds(queue)
                .equals(List.of(id)));
        post(queue, "later");
        assertEquals(List.of("later"), pushed(socket, 1), "a post made once A was back");
        assertNull(socket.next(Duration.ofSeconds(3)), "a post pushed twice");
        socket.close();
    }

    /** Cuts A from the database (the proxy points at a port nobody listens on) until B's sweeper took its rows. */
    private void outageUntilSwept(String queue) throws Exception {
        cutA();
        try {
            Eventually.await("A's subscriptions swept by B", BOUND, () -> subscriptionIds(queue)
                    .isEmpty());
        } finally {
            service.repoint(postgres.getPort());
        }
        Eventually.await(
                "A's subscription stored again",
                BOUND,
                () -> subscriptionIds(queue).size() == 1);
    }

    private static void cutA() throws Exception {
        int nobody;
        try (ServerSocket socket = new ServerSocket(0)) {
            nobody = socket.getLocalPort();
        }
        service.repoint(nobody);
    }

    /** The bodies of the next {@code count} pushes the socket gets (fewer if they do not come within the bound). */
    private static List<String> pushed(SocketFrames socket, int count) throws Exception {
        List<String> bodies = new ArrayList<>();
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (bodies.size() < count && System.nanoTime() < deadline) {
            JsonNode frame = socket.next(Duration.ofSeconds(1));
            if (frame != null) {
                assertEquals("Notification", frame.path("Message_Type").asText(), frame.toString());
                bodies.add(frame.path("body").path("marker").asText());
            }
        }
        return bodies;
    }

    private String subscribe(SocketFrames socket, String queue) throws Exception {
        JsonNode answer =
                socket.call(frame("subscription_create", "{\"queue_name\": \"" + queue + "\", \"ttl\": 3600}"));
        assertEquals(201, answer.path("headers").path("status").asInt(), answer.toString());
        return answer.path("body").path("subscription_id").asText();
    }

    private String frame(String action, String body) {
        return "{\"action\": \"" + action + "\", \"headers\": {\"Client-ID\": \"" + UUID.randomUUID()
                + "\", \"X-Project-ID\": \"" + project + "\"}, \"body\": " + body + "}";
    }

    /** Posts through B, which reaches the database whatever happens to A's. */
    private void post(String queue, String marker) throws Exception {
        HttpResponse<String> posted = send(
                "POST",
                "/v2/queues/" + queue + "/messages",
                "{\"messages\": [{\"ttl\": 3600, \"body\": {\"marker\": \"" + marker + "\"}}]}");
        assertEquals(201, posted.statusCode(), posted.body());
    }

    /** The ids of the queue's subscriptions, as B lists them. */
    private List<String> subscriptionIds(String queue) {
        try {
            HttpResponse<String> listed = send("GET", "/v2/queues/" + queue + "/subscriptions", null);
            assertEquals(200, listed.statusCode(), listed.body());
            List<String> ids = new ArrayList<>();
            JSON.readTree(listed.body())
                    .path("subscriptions")
                    .forEach(found -> ids.add(found.path("id").asText()));
            return ids;
        } catch (Exception e) {
            throw new IllegalStateException("listing the subscriptions of " + queue, e);
        }
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        return b.send(HTTP, Duration.ofSeconds(30), project, method, path, body);
    }
}
