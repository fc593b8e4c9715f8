package io.pigeon.dispatch;

import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Receiver;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pigeon recognises its own calls when they come back by another way than its own port (a Service, an ingress: here
 * a plain socket relay on another port), so a subscription whose webhook leads back to its queue cannot loop; and
 * the marker that makes this work is worth nothing else to a receiver that sees it.
 */
@QuarkusTest
class CallMarkerTest {

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    Pool pool;

    private final String project = Api.newProject();

    private long messages(String queue) {
        return Db.count(pool, "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id "
                + "WHERE q.project = $1 AND q.name = $2", project, queue);
    }

    private long pendingGroups() {
        return Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1 AND state = 'pending'", project);
    }

    private void post(String queue, String marker) {
        var request = Api.as(project).contentType(ContentType.JSON);
        if (marker != null) {
            request = request.header(CallMarker.HEADER, marker);
        }
        request.body("{\"messages\": [{\"ttl\": 300, \"body\": {\"n\": 1}}]}").post("/v2/queues/" + queue + "/messages")
                .then().statusCode(201);
    }

    @Test
    void aWebhookThatLeadsBackThroughAnotherPortDoesNotLoop() throws IOException {
        try (Relay relay = new Relay(RestAssured.port)) {
            // The subscriber posts each notification back to the same queue, through the relay: one message in, the
            // notification comes back as one more message, which must notify nobody.
            String postData = "{\\\"messages\\\": [{\\\"ttl\\\": 300, \\\"body\\\": \\\"$zaqar_message$\\\"}]}";
            Api.as(project).contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"http://127.0.0.1:" + relay.port() + "/v2/queues/loop/messages\", "
                            + "\"ttl\": 3600, \"options\": {\"post_data\": \"" + postData + "\", \"post_headers\": "
                            + "{\"X-Project-Id\": \"" + project + "\", \"Client-ID\": \"" + UUID.randomUUID() + "\"}}}")
                    .post("/v2/queues/loop/subscriptions").then().statusCode(201);

            post("loop", null);

            Eventually.await("the notification posted back and nothing more pending", Duration.ofSeconds(20),
                    () -> messages("loop") >= 2 && pendingGroups() == 0);
            assertEquals(2, messages("loop"), "the message and its notification, posted back once");
            assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project),
                    "no call failed or is left");
        }
    }

    @Test
    void onlyTheDeploymentsOwnMarkerStopsTheFanOut() {
        String hook = "/hook/" + UUID.randomUUID();
        Api.as(project).contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url(hook) + "\", \"ttl\": 3600}")
                .post("/v2/queues/marked/subscriptions").then().statusCode(201);

        post("marked", "forged-marker");
        Eventually.await("the first notification", Duration.ofSeconds(10),
                () -> receiver.calls(hook).size() == 1 && pendingGroups() == 0);
        String marker = receiver.calls(hook).get(0).header(CallMarker.HEADER);
        assertNotNull(marker, "every call carries the marker");

        // What a receiver saw, sent back: stored, notifying nobody.
        post("marked", marker);
        post("marked", null);
        Eventually.await("the third post's notification", Duration.ofSeconds(10),
                () -> receiver.calls(hook).size() >= 2 && pendingGroups() == 0);
        assertEquals(2, receiver.calls(hook).size(), "the marked post notified nobody");
        assertEquals(3, messages("marked"), "and was stored");

        // A subscriber cannot set the marker on its calls.
        Api.as(project).contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url(hook) + "/2\", \"options\": {\"post_headers\": {\""
                        + CallMarker.HEADER + "\": \"x\"}}}")
                .post("/v2/queues/marked/subscriptions").then().statusCode(400)
                .body("description", containsString(CallMarker.HEADER));
    }

    /** A plain TCP relay from a port of its own to Pigeon's: what a Kubernetes Service or an ingress does. */
    private static final class Relay implements AutoCloseable {
        private final ServerSocket server;
        private final int target;

        Relay(int target) throws IOException {
            this.target = target;
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread accepting = new Thread(this::accept, "relay");
            accepting.setDaemon(true);
            accepting.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                    pipe(client, upstream);
                    pipe(upstream, client);
                } catch (IOException e) {
                    return;
                }
            }
        }

        private static void pipe(Socket from, Socket to) {
            Thread copying = new Thread(() -> {
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    in.transferTo(out);
                } catch (IOException e) {
                    // One side closed: so does the other.
                } finally {
                    try {
                        from.close();
                        to.close();
                    } catch (IOException ignored) {
                        // Closed already.
                    }
                }
            }, "relay-pipe");
            copying.setDaemon(true);
            copying.start();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
