package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.body;
import static io.pigeon.api.ws.SocketClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.storage.DatabaseNotices;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Receiver;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The one LISTEN connection of the database ({@link DatabaseNotices}), killed from PostgreSQL again and again while
 * posts go on: every subscribed socket still gets every post, in order, none twice (what was posted while the
 * connection was down is read back once it is back), and the dispatcher still delivers every message to a webhook.
 * The sockets, the dispatcher and the notices share that one connection to the database.
 */
@QuarkusTest
class SocketPushAcrossReconnectTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WITHIN = Duration.ofSeconds(30);
    private static final String QUEUE = "reconnecting";

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    Pool pool;

    private final String project = Api.newProject();

    private long connectionsNamed(String applicationName) {
        return Db.count(
                pool,
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()",
                applicationName);
    }

    private void killTheNoticesConnection() {
        Db.run(
                pool,
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
                DatabaseNotices.APPLICATION_NAME);
    }

    private void post(int number) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 600, \"body\": " + number + "}]}")
                .post("/v2/queues/" + QUEUE + "/messages")
                .then()
                .statusCode(201);
    }

    @Test
    void everySocketGetsEveryPostInOrderAcrossKilledNoticeConnections() throws Exception {
        String hook = "/hook/" + UUID.randomUUID();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url(hook) + "\", \"ttl\": 3600}")
                .post("/v2/queues/" + QUEUE + "/subscriptions")
                .then()
                .statusCode(201);
        try (SocketClient first = SocketClient.open();
                SocketClient second = SocketClient.open()) {
            for (SocketClient socket : List.of(first, second)) {
                assertEquals(
                        201,
                        socket.call(frame("subscription_create", project, body().put("queue_name", QUEUE)))
                                .status());
            }
            assertEquals(1, connectionsNamed(DatabaseNotices.APPLICATION_NAME), "notices connections");
            assertEquals(0, connectionsNamed("pigeon-sockets"), "connections of the sockets' own");
            assertEquals(0, connectionsNamed("pigeon-dispatcher"), "connections of the dispatcher's own");

            int posted = 0;
            for (int kill = 0; kill < 3; kill++) {
                killTheNoticesConnection();
                // At once: made while the connection is down (it reconnects after a pause).
                for (int i = 0; i < 10; i++) {
                    post(posted++);
                }
                Eventually.await(
                        "the notices connection back",
                        WITHIN,
                        () -> connectionsNamed(DatabaseNotices.APPLICATION_NAME) == 1);
                for (int i = 0; i < 5; i++) {
                    post(posted++);
                }
            }

            List<Integer> expected = IntStream.range(0, posted).boxed().toList();
            for (SocketClient socket : List.of(first, second)) {
                List<Integer> pushed = new ArrayList<>();
                for (int i = 0; i < posted; i++) {
                    pushed.add(socket.next().document().path("body").asInt());
                }
                assertEquals(expected, pushed, "what a socket was pushed, in order");
                assertNull(socket.poll(Duration.ofSeconds(1)), "a socket was pushed a post twice");
            }
            Eventually.await("every message delivered to the webhook", WITHIN, () -> delivered(hook)
                    .containsAll(expected));
            assertEquals(Set.copyOf(expected), delivered(hook), "what the webhook was delivered");
            assertEquals(1, connectionsNamed(DatabaseNotices.APPLICATION_NAME), "notices connections");
        }
    }

    private Set<Integer> delivered(String hook) {
        return receiver.calls(hook).stream()
                .map(call -> {
                    try {
                        return JSON.readTree(call.body()).path("body").asInt();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                })
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
