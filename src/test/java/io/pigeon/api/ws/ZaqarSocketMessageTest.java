package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.body;
import static io.pigeon.api.ws.SocketClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The message, claim and subscription actions of Zaqar's websocket, each in JSON and in MessagePack frames, with the
 * bodies and statuses of Zaqar 15's transcript; and what Pigeon answers where Zaqar is buggy (delay, paging).
 */
@QuarkusTest
class ZaqarSocketMessageTest {

    private final String project = Api.newProject();

    private static ObjectNode messages(ObjectNode... messages) {
        ObjectNode body = body();
        ArrayNode list = body.putArray("messages");
        for (ObjectNode message : messages) {
            list.add(message);
        }
        return body;
    }

    private static ObjectNode message(int ttl, String event) {
        ObjectNode message = body().put("ttl", ttl);
        message.putObject("body").put("event", event);
        return message;
    }

    @Test
    void messagesAndClaimsInJson() {
        try (SocketClient socket = SocketClient.open()) {
            lifeOfMessages(socket::call);
        }
    }

    @Test
    void messagesAndClaimsInMessagePack() {
        try (SocketClient socket = SocketClient.open()) {
            lifeOfMessages(frame -> {
                var answer = socket.callPacked(frame);
                assertTrue(answer.binary(), "a binary frame is answered binary");
                return answer;
            });
        }
    }

    private void lifeOfMessages(Function<JsonNode, SocketClient.Received> call) {
        String queue = "messages";
        var posted = call.apply(frame(
                "message_post",
                project,
                messages(message(300, "one"), message(300, "two"), message(300, "three"))
                        .put("queue_name", queue)));
        assertEquals(201, posted.status());
        List<String> ids = new ArrayList<>();
        posted.body().get("message_ids").forEach(id -> ids.add(id.asText()));
        assertEquals(3, ids.size());

        // The same client sees nothing without echo; with echo, its messages: id, claim_id, ttl, age, body.
        assertEquals(
                0,
                call.apply(frame("message_list", project, body().put("queue_name", queue)))
                        .body()
                        .get("messages")
                        .size());
        var listed = call.apply(
                frame("message_list", project, body().put("queue_name", queue).put("echo", true)));
        assertEquals(200, listed.status());
        JsonNode first = listed.body().get("messages").get(0);
        List<String> keys = new ArrayList<>();
        first.fieldNames().forEachRemaining(keys::add);
        assertEquals(List.of("id", "claim_id", "ttl", "age", "body"), keys);
        assertEquals(ids.get(0), first.get("id").asText());
        assertTrue(first.get("claim_id").isNull());
        assertEquals("one", first.at("/body/event").asText());

        var one = call.apply(
                frame("message_get", project, body().put("queue_name", queue).put("message_id", ids.get(1))));
        assertEquals(200, one.status());
        assertEquals("two", one.body().at("/messages/body/event").asText());
        var missing = call.apply(frame(
                "message_get", project, body().put("queue_name", queue).put("message_id", "5c6c9d8a1b7d4a3e2f1a0b9c")));
        assertEquals(404, missing.status());
        assertEquals(
                "Message 5c6c9d8a1b7d4a3e2f1a0b9c does not exist in queue messages for project " + project,
                missing.body().get("exception").asText());

        ObjectNode many = body().put("queue_name", queue);
        many.putArray("message_ids").add(ids.get(0)).add(ids.get(2));
        var got = call.apply(frame("message_get_many", project, many));
        assertEquals(2, got.body().get("messages").size());

        var stats = call.apply(frame("queue_get_stats", project, body().put("queue_name", queue)));
        assertEquals(3, stats.body().at("/messages/free").asInt());
        assertEquals(ids.get(0), stats.body().at("/messages/oldest/id").asText());
        assertEquals(ids.get(2), stats.body().at("/messages/newest/id").asText());

        // Claim two: 201 with the claim's id in each message.
        var claimed = call.apply(frame(
                "claim_create",
                project,
                body().put("queue_name", queue).put("limit", 2).put("ttl", 60).put("grace", 60)));
        assertEquals(201, claimed.status());
        String claimId = claimed.body().get("claim_id").asText();
        assertEquals(2, claimed.body().get("messages").size());
        assertEquals(claimId, claimed.body().at("/messages/0/claim_id").asText());

        var claim = call.apply(
                frame("claim_get", project, body().put("queue_name", queue).put("claim_id", claimId)));
        assertEquals(200, claim.status());
        assertEquals(60, claim.body().get("ttl").asInt());
        assertEquals(2, claim.body().get("messages").size());
        var updated = call.apply(frame(
                "claim_update",
                project,
                body().put("queue_name", queue).put("claim_id", claimId).put("ttl", 120)));
        assertEquals(204, updated.status());
        assertEquals("Claim " + claimId + " updated.", updated.body().asText());
        assertEquals(
                120,
                call.apply(frame(
                                "claim_get",
                                project,
                                body().put("queue_name", queue).put("claim_id", claimId)))
                        .body()
                        .get("ttl")
                        .asInt());
        var noClaim = call.apply(frame(
                "claim_get", project, body().put("queue_name", queue).put("claim_id", "5c6c9d8a1b7d4a3e2f1a0b9c")));
        assertEquals(404, noClaim.status());
        assertEquals(
                "Claim 5c6c9d8a1b7d4a3e2f1a0b9c does not exist.",
                noClaim.body().get("error").asText());

        // A claimed message: 403 without its claim, 400 with another, 204 with its own.
        var refused = call.apply(
                frame("message_delete", project, body().put("queue_name", queue).put("message_id", ids.get(0))));
        assertEquals(403, refused.status());
        assertEquals(
                "Message " + ids.get(0) + " is claimed",
                refused.body().get("exception").asText());
        assertEquals(
                "This message is claimed; it cannot be deleted without a valid claim ID.",
                refused.body().get("error").asText());
        var wrongClaim = call.apply(frame(
                "message_delete",
                project,
                body().put("queue_name", queue)
                        .put("message_id", ids.get(0))
                        .put("claim_id", "a7b35656-ef06-4d5f-ac23-20f0dcd2246e")));
        assertEquals(400, wrongClaim.status());
        var unclaimed = call.apply(frame(
                "message_delete",
                project,
                body().put("queue_name", queue).put("message_id", ids.get(2)).put("claim_id", claimId)));
        assertEquals(400, unclaimed.status());
        assertEquals(
                "Message " + ids.get(2) + " is no longer claimed",
                unclaimed.body().get("exception").asText());
        var deleted = call.apply(frame(
                "message_delete",
                project,
                body().put("queue_name", queue).put("message_id", ids.get(0)).put("claim_id", claimId)));
        assertEquals(204, deleted.status());
        assertEquals("{}", deleted.body().toString());

        var released = call.apply(
                frame("claim_delete", project, body().put("queue_name", queue).put("claim_id", claimId)));
        assertEquals(204, released.status());
        assertEquals("Claim " + claimId + " deleted.", released.body().asText());

        // Pop one, delete the other by id: nothing left.
        var popped = call.apply(frame(
                "message_delete_many", project, body().put("queue_name", queue).put("pop", 1)));
        assertEquals(200, popped.status());
        assertEquals(1, popped.body().get("messages").size());
        // As Zaqar's pops: the claim that took it, and its count (the claim released above, then the pop).
        JsonNode poppedOne = popped.body().at("/messages/0");
        assertEquals(ids.get(1), poppedOne.get("id").asText());
        assertEquals(2, poppedOne.get("claim_count").asInt());
        assertTrue(poppedOne.get("claim_id").asText().matches("[0-9a-f]{8}-[0-9a-f-]{27}"));
        ObjectNode byIds = body().put("queue_name", queue);
        byIds.putArray("message_ids").add(ids.get(1)).add(ids.get(2));
        var bulk = call.apply(frame("message_delete_many", project, byIds));
        assertEquals(204, bulk.status());
        assertEquals(
                0,
                call.apply(frame("queue_get_stats", project, body().put("queue_name", queue)))
                        .body()
                        .at("/messages/total")
                        .asInt());
        var nothing = call.apply(frame("claim_create", project, body().put("queue_name", queue)));
        assertEquals(204, nothing.status());
        assertNotNull(nothing.body().get("claim_id"));
    }

    @Test
    void messageErrorsAreZaqarsOrHttpsTexts() {
        try (SocketClient socket = SocketClient.open()) {
            var ttl = socket.call(
                    frame("message_post", project, messages(message(59, "x")).put("queue_name", "errors")));
            assertEquals(400, ttl.status());
            assertTrue(ttl.body().get("error").isNull());
            ObjectNode noBody = body().put("queue_name", "errors");
            noBody.putArray("messages").addObject().put("ttl", 300);
            assertEquals(
                    400, socket.call(frame("message_post", project, noBody)).status());
            assertEquals(
                    "No messages to enqueu.",
                    socket.call(frame("message_post", project, messages().put("queue_name", "errors")))
                            .body()
                            .get("exception")
                            .asText());
            ObjectNode notUuid =
                    frame("message_post", project, messages(message(300, "x")).put("queue_name", "errors"));
            ((ObjectNode) notUuid.get("headers")).put("Client-ID", "not-a-uuid");
            assertEquals(400, socket.call(notUuid).status());
            var limit = socket.call(frame(
                    "message_list", project, body().put("queue_name", "errors").put("limit", 21)));
            assertEquals(400, limit.status());
            assertEquals(
                    "Limit must be at least 1 and may not be greater than 20.",
                    limit.body().get("exception").asText());
            var noQueue = socket.call(frame("message_list", project, body().put("queue_name", "errors")));
            assertEquals(404, noQueue.status());
            ObjectNode empty = body().put("queue_name", "errors");
            empty.putArray("message_ids");
            assertEquals(
                    400, socket.call(frame("message_get_many", project, empty)).status());
            var neither = socket.call(frame("message_delete_many", project, body().put("queue_name", "errors")));
            assertEquals(400, neither.status());
            ObjectNode both = body().put("queue_name", "errors").put("pop", 1);
            both.putArray("message_ids").add("5c6c9d8a1b7d4a3e2f1a0b9c");
            assertEquals(
                    "pop and id params cannot be present together in the delete request.",
                    socket.call(frame("message_delete_many", project, both))
                            .body()
                            .get("exception")
                            .asText());
            assertEquals(
                    400,
                    socket.call(frame(
                                    "message_delete_many",
                                    project,
                                    body().put("queue_name", "errors").put("pop", 21)))
                            .status());
            for (var claim : List.of(body().put("ttl", 59), body().put("grace", 43201), body().put("limit", 21))) {
                assertEquals(
                        400,
                        socket.call(frame("claim_create", project, claim.put("queue_name", "errors")))
                                .status());
            }
            // None of it stored anything: the queue does not exist.
            assertEquals(
                    0,
                    socket.call(frame("queue_list", project, null))
                            .body()
                            .get("queues")
                            .size());
        }
    }

    @Test
    void delayIsHonouredAsInHttpV2() {
        try (SocketClient socket = SocketClient.open()) {
            ObjectNode delayed = message(300, "later").put("delay", 60);
            assertEquals(
                    201,
                    socket.call(frame("message_post", project, messages(delayed).put("queue_name", "delayed")))
                            .status());
            ObjectNode other = frame("message_list", project, body().put("queue_name", "delayed"));
            ((ObjectNode) other.get("headers")).put("Client-ID", "0aa1f1b2-58d5-4bbd-9f2b-3b3c9d4e5f60");
            assertEquals(0, socket.call(other).body().get("messages").size(), "a delayed message is not listed yet");
            var claim = socket.call(frame("claim_create", project, body().put("queue_name", "delayed")));
            assertEquals(204, claim.status(), "a delayed message cannot be claimed yet");
        }
    }

    @Test
    void messageListPagesWithTheMarkerItGives() {
        try (SocketClient socket = SocketClient.open()) {
            ObjectNode[] five = new ObjectNode[5];
            for (int i = 0; i < five.length; i++) {
                five[i] = message(300, "m" + i);
            }
            socket.call(frame("message_post", project, messages(five).put("queue_name", "paged")));
            List<String> seen = new ArrayList<>();
            String marker = null;
            for (int page = 0; page < 5; page++) {
                ObjectNode request =
                        body().put("queue_name", "paged").put("echo", true).put("limit", 2);
                if (marker != null) {
                    request.put("marker", marker);
                }
                var answer = socket.call(frame("message_list", project, request));
                assertEquals(200, answer.status());
                answer.body()
                        .get("messages")
                        .forEach(m -> seen.add(m.at("/body/event").asText()));
                if (answer.body().get("marker") == null) {
                    break;
                }
                marker = answer.body().get("marker").asText();
            }
            assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), seen);
            assertFalse(seen.isEmpty());
        }
    }

    @Test
    void subscriptionsInJsonAndMessagePack() {
        try (SocketClient socket = SocketClient.open()) {
            var created = socket.call(frame(
                    "subscription_create",
                    project,
                    body().put("queue_name", "subscribed")
                            .put("subscriber", "http://127.0.0.1:19009/hook")
                            .put("ttl", 3600)
                            .set("options", body().put("k", "v"))));
            assertEquals(201, created.status());
            String id = created.body().get("subscription_id").asText();
            assertEquals(
                    "Subscription subscribed created.",
                    created.body().get("message").asText());

            var got = socket.callPacked(frame(
                    "subscription_get",
                    project,
                    body().put("queue_name", "subscribed").put("subscription_id", id)));
            assertTrue(got.binary());
            assertEquals(200, got.status());
            List<String> keys = new ArrayList<>();
            got.body().fieldNames().forEachRemaining(keys::add);
            assertEquals(List.of("id", "source", "subscriber", "ttl", "age", "options", "confirmed"), keys);
            assertEquals("v", got.body().at("/options/k").asText());

            var listed = socket.call(frame("subscription_list", project, body().put("queue_name", "subscribed")));
            assertEquals(1, listed.body().get("subscriptions").size());
            var missing = socket.call(frame(
                    "subscription_get",
                    project,
                    body().put("queue_name", "subscribed").put("subscription_id", "5c6c9d8a1b7d4a3e2f1a0b9c")));
            assertEquals(404, missing.status());
            assertEquals(
                    "Subscription 5c6c9d8a1b7d4a3e2f1a0b9c for queue subscribed does not exist.",
                    missing.body().get("error").asText());

            // Where Zaqar 15 answers 500 or accepts what expires at once: 400.
            var ftp = socket.call(frame(
                    "subscription_create",
                    project,
                    body().put("queue_name", "subscribed").put("subscriber", "ftp://127.0.0.1/x")));
            assertEquals(400, ftp.status());
            var zero = socket.call(frame(
                    "subscription_create",
                    project,
                    body().put("queue_name", "subscribed")
                            .put("subscriber", "http://127.0.0.1:19009/zero")
                            .put("ttl", 0)));
            assertEquals(400, zero.status());

            var deleted = socket.callPacked(frame(
                    "subscription_delete",
                    project,
                    body().put("queue_name", "subscribed").put("subscription_id", id)));
            assertEquals(204, deleted.status());
            assertEquals("Subscription " + id + " removed.", deleted.body().asText());
            assertEquals(
                    0,
                    socket.call(frame("subscription_list", project, body().put("queue_name", "subscribed")))
                            .body()
                            .get("subscriptions")
                            .size());
            assertNull(socket.poll(Duration.ofMillis(100)), "no stray frame");
        }
    }
}
