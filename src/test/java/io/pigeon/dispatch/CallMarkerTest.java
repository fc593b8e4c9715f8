package io.pigeon.dispatch;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Receiver;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
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
        return Db.count(
                pool,
                "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id "
                        + "WHERE q.project = $1 AND q.name = $2",
                project,
                queue);
    }

    private long pendingGroups() {
        return Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1 AND state = 'pending'", project);
    }

    private void post(String queue, String marker) {
        var request = Api.as(project).contentType(ContentType.JSON);
        if (marker != null) {
            request = request.header(CallMarker.HEADER, marker);
        }
        request.body("{\"messages\": [{\"ttl\": 300, \"body\": {\"n\": 1}}]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    @Test
    void aWebhookThatLeadsBackThroughAnotherPortDoesNotLoop() throws IOException {
        try (Relay relay = new Relay(RestAssured.port)) {
            // The subscriber posts each notification back to the same queue, through the relay: one message in, the
            // notification comes back as one more message, which must notify nobody.
            String postData = "{\\\"messages\\\": [{\\\"ttl\\\": 300, \\\"body\\\": \\\"$zaqar_message$\\\"}]}";
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"http://127.0.0.1:" + relay.port() + "/v2/queues/loop/messages\", "
                            + "\"ttl\": 3600, \"options\": {\"post_data\": \"" + postData + "\", \"post_headers\": "
                            + "{\"X-Project-Id\": \"" + project + "\", \"Client-ID\": \"" + UUID.randomUUID() + "\"}}}")
                    .post("/v2/queues/loop/subscriptions")
                    .then()
                    .statusCode(201);

            post("loop", null);

            Eventually.await(
                    "the notification posted back and nothing more pending",
                    Duration.ofSeconds(20),
                    () -> messages("loop") >= 2 && pendingGroups() == 0);
            assertEquals(2, messages("loop"), "the message and its notification, posted back once");
            assertEquals(
                    0,
                    Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project),
                    "no call failed or is left");
        }
    }

    @Test
    void onlyTheDeploymentsOwnMarkerStopsTheFanOut() {
        String hook = "/hook/" + UUID.randomUUID();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url(hook) + "\", \"ttl\": 3600}")
                .post("/v2/queues/marked/subscriptions")
                .then()
                .statusCode(201);

        post("marked", "forged-marker");
        Eventually.await(
                "the first notification",
                Duration.ofSeconds(10),
                () -> receiver.calls(hook).size() == 1 && pendingGroups() == 0);
        String marker = receiver.calls(hook).get(0).header(CallMarker.HEADER);
        assertNotNull(marker, "every call carries the marker");

        // What a receiver saw, sent back: stored, notifying nobody.
        post("marked", marker);
        post("marked", null);
        Eventually.await(
                "the third post's notification",
                Duration.ofSeconds(10),
                () -> receiver.calls(hook).size() >= 2 && pendingGroups() == 0);
        assertEquals(2, receiver.calls(hook).size(), "the marked post notified nobody");
        assertEquals(3, messages("marked"), "and was stored");

        // A subscriber cannot set the marker on its calls.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url(hook) + "/2\", \"options\": {\"post_headers\": {\""
                        + CallMarker.HEADER + "\": \"x\"}}}")
                .post("/v2/queues/marked/subscriptions")
                .then()
                .statusCode(400)
                .body("description", containsString(CallMarker.HEADER));
        // Nor in the spelling CGI and WSGI receivers read as the same header.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url(hook) + "/3\", \"options\": {\"post_headers\": "
                        + "{\"X_Pigeon_Marker\": \"x\"}}}")
                .post("/v2/queues/marked/subscriptions")
                .then()
                .statusCode(400);
    }

    private ValidatableResponse push(String mergeKey, String target, String marker) {
        var request = Api.as(project).contentType(ContentType.JSON);
        if (marker != null) {
            request = request.header(CallMarker.HEADER, marker);
        }
        String service =
                Base64.getUrlEncoder().withoutPadding().encodeToString(target.getBytes(StandardCharsets.UTF_8));
        return request.body("{\"n\": 1}")
                .post("/v3/queue/" + mergeKey + "/POST/" + service)
                .then();
    }

    private long groups(String mergeKey) {
        return Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE merge_key = $1", mergeKey);
    }

    /**
     * Issue 25, second round: a /v3 push ignored the marker, so a relay that pushed each call back to a /v3 path
     * looped at the per-host rate for ever. A call Pigeon made cannot schedule another: refused, so the loop ends at
     * its first turn (the relayed call fails, is retried and ends dead, as any refused call).
     */
    @Test
    void aPushThatComesBackThroughARelayIsRefusedSoTheLoopEnds() throws IOException {
        try (Relay relay = new Relay(RestAssured.port)) {
            String hook = "/hook/" + UUID.randomUUID();
            String relayed = "-relayed-" + UUID.randomUUID();
            // Pigeon calls the relay, which is Pigeon: the call is a push of a further call, to the receiver.
            String looping = "-looping-" + UUID.randomUUID();
            push(
                            looping,
                            "http://127.0.0.1:" + relay.port() + "/v3/queue/" + relayed + "/POST/"
                                    + receiver.service(hook),
                            null)
                    .statusCode(201);

            Eventually.await(
                    "the relayed push refused",
                    Duration.ofSeconds(20),
                    () -> Db.count(
                                    pool,
                                    "SELECT count(*) FROM dispatch_groups WHERE project = $1 AND merge_key = $2 "
                                            + "AND last_error = 'HTTP 4xx'",
                                    project,
                                    looping)
                            == 1);
            assertEquals(0, groups(relayed), "the relayed push stored nothing");
            assertEquals(0, receiver.calls(hook).size(), "and scheduled no call");
        }
    }

    @Test
    void aPushCarryingTheDeploymentsMarkerIsRefusedAndAForgedOneIsIgnored() {
        String hook = "/hook/" + UUID.randomUUID();
        push("-first", receiver.url(hook), null).statusCode(201);
        Eventually.await(
                "the first call",
                Duration.ofSeconds(10),
                () -> receiver.calls(hook).size() == 1);
        String marker = receiver.calls(hook).get(0).header(CallMarker.HEADER);
        assertNotNull(marker, "every call carries the marker");

        String marked = "-marked-" + UUID.randomUUID();
        push(marked, receiver.url(hook), marker)
                .statusCode(403)
                .contentType("application/json")
                .body("title", equalTo("Forbidden"))
                .body("description", containsString(CallMarker.HEADER))
                .body("description", containsString("a call Pigeon made cannot schedule another call"));
        assertEquals(0, groups(marked));
        // The marker among other values, or in a second header after another value, is still the marker.
        push(marked, receiver.url(hook), "x, " + marker).statusCode(403);
        Api.as(project)
                .header(CallMarker.HEADER, "x")
                .header(CallMarker.HEADER, marker)
                .contentType(ContentType.JSON)
                .body("{\"twice\": true}")
                .post("/v3/queue/" + marked + "/POST/"
                        + Base64.getUrlEncoder()
                                .withoutPadding()
                                .encodeToString(receiver.url(hook).getBytes(StandardCharsets.UTF_8)))
                .then()
                .statusCode(403);
        assertEquals(0, groups(marked));

        // Not this deployment's marker: an ordinary push.
        String forged = "-forged-" + UUID.randomUUID();
        push(forged, receiver.url(hook), "forged-marker").statusCode(201);
        Eventually.await(
                "the forged push's call",
                Duration.ofSeconds(10),
                () -> receiver.calls(hook).size() == 2);

        // Nor may a call Pigeon made requeue a dead group.
        long dead = Db.run(
                        pool,
                        """
                INSERT INTO dispatch_groups (project, merge_key, method, target, mergeable, envelope, body, state, fire_at,
                                             dead_at)
                VALUES ($1, '-dead', 'POST', $2, false, 'single', '{}', 'dead', now(), now())
                RETURNING id""",
                        project,
                        receiver.url(hook))
                .iterator()
                .next()
                .getLong(0);
        Api.as(project)
                .header(CallMarker.HEADER, marker)
                .post("/v3/dead-groups/" + dead + "/requeue")
                .then()
                .statusCode(403)
                .body("description", containsString("a call Pigeon made cannot schedule another call"));
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE id = $1 AND state = 'dead'", dead));
        Api.as(project)
                .header(CallMarker.HEADER, "forged-marker")
                .post("/v3/dead-groups/" + dead + "/requeue")
                .then()
                .statusCode(204);
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
            Thread copying = new Thread(
                    () -> {
                        try (InputStream in = from.getInputStream();
                                OutputStream out = to.getOutputStream()) {
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
                    },
                    "relay-pipe");
            copying.setDaemon(true);
            copying.start();
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
