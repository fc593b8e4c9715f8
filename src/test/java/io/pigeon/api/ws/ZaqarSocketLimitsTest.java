package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.body;
import static io.pigeon.api.ws.SocketClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.subscription.SocketSubscriptions;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.net.http.WebSocketHandshakeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The bounds of pigeon.websocket.* (small ones, see {@link SmallSocketLimitsProfile}), and the socket side of
 * self-subscription: the notification frame, its encoding, the inbox forgotten on close, a reader too slow.
 */
@QuarkusTest
@TestProfile(SmallSocketLimitsProfile.class)
class ZaqarSocketLimitsTest {

    private final String project = Api.newProject();

    @Inject
    RecordingSocketSubscriptions pushes;

    @Test
    void notificationsAreZaqarsBareFrameInTheSubscribingFramesEncoding() throws Exception {
        String other = Api.newProject();
        try (SocketClient text = SocketClient.open();
                SocketClient packed = SocketClient.open("/v2")) {
            var subscribed = text.call(frame("subscription_create", project, body().put("queue_name", "pushed")));
            assertEquals(201, subscribed.status());
            assertEquals(
                    "Subscription pushed created.",
                    subscribed.body().get("message").asText());
            assertEquals(
                    201,
                    packed.callPacked(frame("subscription_create", other, body().put("queue_name", "pushed")))
                            .status());

            var notification = new SocketSubscriptions.SocketNotification(300, "{\"event\": 1.5}", "pushed");
            pushes.inbox(project, "pushed").deliver(notification);
            var received = text.next();
            assertFalse(received.binary());
            assertEquals(
                    "{\"ttl\":300,\"body\":{\"event\":1.5},\"Message_Type\":\"Notification\",\"queue_name\":\"pushed\"}",
                    received.text());
            pushes.inbox(other, "pushed").deliver(notification);
            var binary = packed.next();
            assertTrue(binary.binary());
            assertEquals(
                    "{\"ttl\":300,\"body\":{\"event\":1.5},\"Message_Type\":\"Notification\",\"queue_name\":\"pushed\"}",
                    binary.document().toString());
            String socketId = pushes.inbox(project, "pushed").socketId();
            text.close();
            Eventually.await("the closed socket forgotten", Duration.ofSeconds(10), () -> pushes.forgot(socketId));
        }
    }

    @Test
    void aReaderThatDoesNotReadIsClosed() {
        try (SocketClient stalled = SocketClient.stalled()) {
            stalled.call(frame("subscription_create", project, body().put("queue_name", "slow")));
            var inbox = pushes.inbox(project, "slow");
            String body = "\"" + "x".repeat(10_000) + "\"";
            for (int i = 0; i < 4000; i++) {
                inbox.deliver(new SocketSubscriptions.SocketNotification(300, body, "slow"));
            }
            // Reading again, the client finds the notifications that were written, then the close.
            stalled.resume();
            assertEquals(1008, stalled.closeCode());
        }
    }

    @Test
    void framesBeyondTheInFlightBoundCloseTheSocket() {
        try (SocketClient socket = SocketClient.open()) {
            for (int i = 0; i < 200 && !socket.closedByServer(); i++) {
                try {
                    socket.send(frame("queue_get_stats", project, body().put("queue_name", "busy")));
                } catch (CompletionException closed) {
                    break;
                }
            }
            assertEquals(1008, socket.closeCode());
        }
    }

    @Test
    void aProjectMayHoldSoManySockets() {
        String busy = Api.newProject();
        try (SocketClient first = SocketClient.open();
                SocketClient second = SocketClient.open()) {
            assertEquals(200, first.call(frame("queue_list", busy, null)).status());
            assertEquals(
                    200,
                    second.call(frame("queue_list", Api.newProject(), null)).status());
            second.send(frame("queue_list", busy, null));
            assertEquals(1008, second.closeCode());
            assertEquals(200, first.call(frame("queue_list", busy, null)).status());
        }
    }

    @Test
    void aReplicaMayHoldSoManySockets() {
        List<SocketClient> open = new ArrayList<>();
        WebSocketHandshakeException refused = null;
        try {
            for (int i = 0; i < 7 && refused == null; i++) {
                try {
                    open.add(SocketClient.open());
                } catch (CompletionException e) {
                    refused = (WebSocketHandshakeException) e.getCause();
                }
            }
            assertNotNull(refused, "the upgrade past the bound is refused");
            assertEquals(503, refused.getResponse().statusCode());
        } finally {
            open.forEach(SocketClient::close);
        }
    }

    @Test
    void aSilentSocketIsClosedAfterTheIdleTimeout() {
        try (SocketClient socket = SocketClient.open()) {
            assertEquals(1001, socket.closeCode());
        }
    }
}
