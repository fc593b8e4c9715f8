package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.body;
import static io.pigeon.api.ws.SocketClient.frame;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Consumer;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * Zaqar's error answers (§7 of the reference): undecodable frames, non-object frames, unknown actions, schema
 * failures; the actions Zaqar declares without serving, and authenticate, answered with the socket still usable; a
 * fuzz of bad frames that only ever gets error answers and stores nothing; the bounds of a frame.
 */
@QuarkusTest
class ZaqarSocketErrorTest {

    private final String project = Api.newProject();

    private static void assertStillAnswers(SocketClient socket, String project) {
        var listed = socket.call(frame("queue_list", project, null));
        assertEquals(200, listed.status(), "the socket still answers");
    }

    @Test
    void framesThatAreNoRequest() {
        try (SocketClient socket = SocketClient.open()) {
            socket.sendText("{\"action\": \"queue_list\", ");
            var invalid = socket.next();
            assertEquals(400, invalid.status());
            assertTrue(invalid.body().get("error").asText().startsWith("Can't decode text (JSON) request."));
            assertEquals(
                    "{\"action\":null,\"body\":{},\"headers\":{},\"api\":\"v2\"}",
                    invalid.document().get("request").toString());

            socket.sendText("[\"queue_list\"]");
            assertEquals(
                    "Unexpected body type. Expected dict or dict like.",
                    socket.next().body().get("error").asText());
            socket.sendText("\"queue_list\"");
            assertEquals(400, socket.next().status());

            socket.sendBinary(new byte[] {(byte) 0xc1, (byte) 0xff, 0x20});
            var packed = socket.next();
            assertTrue(packed.binary());
            assertTrue(packed.body().get("error").asText().startsWith("Can't decode binary (MessagePack) request."));
            socket.sendBinary(new byte[] {(byte) 0x93, 1, 2, 3});
            assertEquals(
                    "Unexpected body type. Expected dict or dict like.",
                    socket.next().body().get("error").asText());
            assertStillAnswers(socket, project);
        }
    }

    @Test
    void actionsThatAreNone() {
        try (SocketClient socket = SocketClient.open()) {
            assertEquals(
                    "nope is not a valid action",
                    socket.call(frame("nope", project, body()))
                            .body()
                            .get("error")
                            .asText());
            ObjectNode missing = frame("x", project, null);
            missing.remove("action");
            var none = socket.call(missing);
            assertEquals("None is not a valid action", none.body().get("error").asText());
            assertTrue(none.document().at("/request/action").isNull());
            ObjectNode number = frame("x", project, null);
            number.put("action", 42);
            var answered = socket.call(number);
            assertEquals(
                    "42 is not a valid action", answered.body().get("error").asText());
            assertEquals(42, answered.document().at("/request/action").asInt());
            assertEquals(
                    "queue_update is not a valid action",
                    socket.call(frame("queue_update", project, body().put("queue_name", "q")))
                            .body()
                            .get("error")
                            .asText());
            assertStillAnswers(socket, project);
        }
    }

    @Test
    void schemaFailures() {
        try (SocketClient socket = SocketClient.open()) {
            List<JsonNode> frames = new ArrayList<>();
            frames.add(SocketClient.JSON.createObjectNode().put("action", "queue_list"));
            ObjectNode noClient = frame("queue_list", project, null);
            ((ObjectNode) noClient.get("headers")).remove("Client-ID");
            frames.add(noClient);
            ObjectNode httpSpelling = frame("queue_list", project, null);
            ((ObjectNode) httpSpelling.get("headers")).remove("X-Project-ID");
            ((ObjectNode) httpSpelling.get("headers")).put("X-Project-Id", project);
            frames.add(httpSpelling);
            ObjectNode numberProject = frame("queue_list", project, null);
            ((ObjectNode) numberProject.get("headers")).put("X-Project-ID", 7);
            frames.add(numberProject);
            ObjectNode textBody = frame("queue_get", project, null);
            textBody.put("body", "q");
            frames.add(textBody);
            frames.add(frame("queue_get", project, body()));
            frames.add(frame("message_list", project, null));
            frames.add(frame("queue_list", project, body().put("limit", "1")));
            frames.add(frame("queue_list", project, body().put("limit", 1.0)));
            frames.add(
                    frame("claim_create", project, body().put("queue_name", "q").put("ttl", "60")));
            frames.add(
                    frame("message_list", project, body().put("queue_name", "q").put("echo", "true")));
            ObjectNode objectMessages = body().put("queue_name", "q");
            objectMessages.putObject("messages").put("ttl", 300).put("body", 1);
            frames.add(frame("message_post", project, objectMessages));
            ObjectNode numberIds = body().put("queue_name", "q");
            numberIds.putArray("message_ids").add(1);
            frames.add(frame("message_get_many", project, numberIds));
            for (JsonNode sent : frames) {
                var answer = socket.call(sent);
                assertEquals(400, answer.status(), sent.toString());
                assertEquals(
                        "Schema validation failed.", answer.body().get("error").asText(), sent.toString());
            }
            // Extra keys are accepted and echoed.
            ObjectNode extra =
                    frame("queue_get", project, body().put("queue_name", "q").put("extra", 1));
            extra.put("id", 17);
            ((ObjectNode) extra.get("headers")).put("X-Extra", "yes");
            var echoed = socket.call(extra);
            assertEquals(200, echoed.status());
            assertEquals("yes", echoed.document().at("/request/headers/X-Extra").asText());
            assertEquals(1, echoed.document().at("/request/body/extra").asInt());
            assertEquals(
                    0,
                    socket.call(frame("queue_list", project, null))
                            .body()
                            .get("queues")
                            .size());
        }
    }

    @Test
    void declaredButUnservedActionsAreAnsweredAndTheSocketStaysUsable() {
        try (SocketClient socket = SocketClient.open()) {
            for (String action : List.of(
                    "get_home_doc",
                    "ping_node",
                    "check_node_health",
                    "pool_list",
                    "pool_create",
                    "pool_get",
                    "pool_update",
                    "pool_delete",
                    "flavor_list",
                    "flavor_create",
                    "flavor_get",
                    "flavor_update",
                    "flavor_delete")) {
                var answer = socket.call(frame(action, project, body()));
                assertEquals(501, answer.status(), action);
                assertTrue(answer.body().get("error").asText().startsWith(action + " is not served"), action);
            }
            assertStillAnswers(socket, project);
        }
    }

    @Test
    void authenticateWithoutAuthenticationSucceedsAndHidesTheToken() {
        try (SocketClient socket = SocketClient.open()) {
            ObjectNode authenticate = SocketClient.JSON.createObjectNode().put("action", "authenticate");
            authenticate.putObject("headers").put("X-Auth-Token", "secret").put("X-Project-ID", project);
            var answer = socket.call(authenticate);
            assertEquals(200, answer.status());
            assertEquals("Authentified.", answer.body().get("message").asText());
            assertEquals("{}", answer.document().at("/request/headers").toString());
            ObjectNode noToken = SocketClient.JSON.createObjectNode().put("action", "authenticate");
            noToken.putObject("headers").put("X-Project-ID", project);
            assertEquals(
                    "Schema validation failed.",
                    socket.call(noToken).body().get("error").asText());
            assertStillAnswers(socket, project);
        }
    }

    @Test
    void socketSubscriptionWithoutItsImplementationIs503() {
        try (SocketClient socket = SocketClient.open()) {
            var answer = socket.call(frame("subscription_create", project, body().put("queue_name", "self")));
            if (answer.status() == 503) {
                assertNotNull(answer.body().get("error"));
            } else {
                // Once the push is merged, the socket subscribes itself.
                assertEquals(201, answer.status());
            }
        }
    }

    /**
     * Random bytes, deep nesting, huge numbers, wrong types, in both encodings: each frame gets an error answer (a
     * 4xx), the socket keeps answering, and no queue was created.
     */
    @Test
    void fuzzedFramesGetOnlyErrorAnswers() throws Exception {
        Random random = new Random(28);
        try (SocketClient socket = SocketClient.open()) {
            // Sent a few ahead of their answers, within max-frames-in-flight (16): frames are decoded on workers, so
            // a burst of 68 may all be unanswered at once.
            List<Object> frames = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                byte[] noise = new byte[1 + random.nextInt(200)];
                random.nextBytes(noise);
                frames.add(i % 2 == 0 ? noise : new String(noise, StandardCharsets.ISO_8859_1));
            }
            frames.add("[".repeat(5000) + "]".repeat(5000));
            frames.add("{\"action\": \"queue_list\", \"body\": " + "{\"a\":".repeat(3000) + "1" + "}".repeat(3001));
            frames.add("{\"action\": \"queue_list\", \"headers\": {\"Client-ID\": \"x\", \"X-Project-ID\": \"" + project
                    + "\"}, \"body\": {\"limit\": 1" + "0".repeat(2000) + "}}");
            frames.add("{\"action\": \"queue_list\", \"headers\": {\"Client-ID\": \"x\", \"X-Project-ID\": \"" + project
                    + "\"}, \"body\": {\"limit\": 100000000000000000000000000}}");
            frames.add("{\"action\": \"message_post\", \"headers\": {\"Client-ID\": \"" + Api.CLIENT_ID
                    + "\", \"X-Project-ID\": \"" + project + "\"}, \"body\": {\"queue_name\": \"fuzz\", "
                    + "\"messages\": [{\"ttl\": 1e2147483648, \"body\": 1}]}}");
            frames.add("{\"action\": \"message_post\", \"headers\": {\"Client-ID\": \"" + Api.CLIENT_ID
                    + "\", \"X-Project-ID\": \"" + project + "\"}, \"body\": {\"queue_name\": \"fuzz\", "
                    + "\"messages\": [{\"ttl\": 300, \"body\": 1}, 7]}}");
            frames.add("{\"action\": \"message_post\", \"headers\": {\"Client-ID\": \"" + Api.CLIENT_ID
                    + "\", \"X-Project-ID\": \"" + project + "\"}, \"body\": {\"queue_name\": \"fuzz\", "
                    + "\"messages\": [{\"ttl\": 300, \"body\": \"\\ud800\"}]}}");
            frames.add("{\"action\": \"queue_create\", \"headers\": {\"Client-ID\": \"" + Api.CLIENT_ID
                    + "\", \"X-Project-ID\": \"" + project + "\"}, \"body\": {\"queue_name\": \"fuzz\", "
                    + "\"metadata\": {\"_default_message_ttl\": \"x\"}}}");
            int answered = 0;
            for (int sent = 0; sent < frames.size(); sent++) {
                if (frames.get(sent) instanceof byte[] binary) {
                    socket.sendBinary(binary);
                } else {
                    socket.sendText((String) frames.get(sent));
                }
                if (sent - answered < 8 && sent < frames.size() - 1) {
                    continue;
                }
                for (; answered <= sent; answered++) {
                    var answer = socket.next();
                    assertNotNull(answer.document(), "an answer frame that decodes");
                    int status = answer.status();
                    assertTrue(status >= 400 && status < 500, "an error answer, not " + status + ": " + answer.body());
                }
            }
            assertStillAnswers(socket, project);
            assertEquals(
                    0,
                    socket.call(frame("queue_list", project, null))
                            .body()
                            .get("queues")
                            .size());
        }
    }

    /**
     * Compression is never agreed, per message or per frame: its size bounds would only hold after inflating, on the
     * event loop. A compressed frame sent anyway (RSV1 set: 10 MB of text deflated to a few KB) ends its socket; the
     * replica goes on answering.
     */
    @Test
    void compressionIsRefusedAndACompressedFrameEndsTheSocket() throws Exception {
        try (Socket socket = new Socket("localhost", RestAssured.port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /v2 HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                            + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits, "
                            + "x-webkit-deflate-frame, deflate-frame\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            StringBuilder head = new StringBuilder();
            while (head.indexOf("\r\n\r\n") < 0) {
                int b = in.read();
                assertTrue(b >= 0, "the upgrade was not answered: " + head);
                head.append((char) b);
            }
            assertTrue(head.toString().startsWith("HTTP/1.1 101"), head.toString());
            assertFalse(
                    head.toString().toLowerCase(Locale.ROOT).contains("sec-websocket-extensions"),
                    "compression was agreed: " + head);

            byte[] text = ("{\"action\": \"queue_list\", \"pad\": \"" + "a".repeat(10_000_000) + "\"}")
                    .getBytes(StandardCharsets.US_ASCII);
            Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
            deflater.setInput(text);
            byte[] buffer = new byte[1 << 20];
            int length = deflater.deflate(buffer, 0, buffer.length, Deflater.SYNC_FLUSH);
            deflater.end();
            byte[] payload = Arrays.copyOf(buffer, length - 4); // without the sync flush's 00 00 ff ff
            byte[] mask = {1, 2, 3, 4};
            ByteArrayOutputStream frame = new ByteArrayOutputStream();
            frame.write(0xC1); // FIN, RSV1 (compressed), text
            frame.write(0x80 | 126);
            frame.write(payload.length >> 8);
            frame.write(payload.length & 0xff);
            frame.write(mask);
            for (int i = 0; i < payload.length; i++) {
                frame.write(payload[i] ^ mask[i % 4]);
            }
            out.write(frame.toByteArray());
            out.flush();
            // The socket ends: a close frame, then the end of the stream (or the end at once).
            byte[] rest = in.readAllBytes();
            assertTrue(rest.length == 0 || (rest[0] & 0x0f) == 0x8, "answered a compressed frame: " + rest.length);
        }
        Api.as(project).get("/v2/queues").then().statusCode(200);
    }

    /** A marker is a string, as Zaqar's schema says: a number is a schema failure, not an empty page. */
    @Test
    void aMarkerThatIsNoStringIsASchemaFailure() {
        try (SocketClient socket = SocketClient.open()) {
            for (String marker : List.of("300", "1e400", "true", "[]")) {
                // Sent as written: a JSON library on the client would turn 1e400 into something else first.
                socket.sendText("{\"action\": \"message_list\", \"headers\": {\"Client-ID\": \"" + Api.CLIENT_ID
                        + "\", \"X-Project-ID\": \"" + project + "\"}, \"body\": {\"queue_name\": \"marked\", "
                        + "\"marker\": " + marker + "}}");
                var answer = socket.next();
                assertEquals(400, answer.status(), marker + " -> " + answer.document());
            }
        }
    }

    @Test
    void aFrameOverTheBodyLimitClosesTheSocket() {
        try (SocketClient socket = SocketClient.open()) {
            socket.sendText("{\"action\": \"queue_list\", \"x\": \"" + "a".repeat(1_100_000) + "\"}");
            assertEquals(1009, socket.closeCode());
        }
    }

    /**
     * MessagePack can spell what JSON cannot (binary, extension types, NaN): such a frame is refused whole, since every
     * body is stored and read back as JSON and would come back as something else.
     */
    @Test
    void messagePackValuesThatJsonCannotHoldAreRefused() throws Exception {
        List<Consumer<MessagePacker>> bodies = List.of(
                packer -> uncheck(
                        () -> packer.packExtensionTypeHeader((byte) 5, 3).writePayload(new byte[] {1, 2, 3})),
                packer -> uncheck(() -> packer.packBinaryHeader(2).writePayload(new byte[] {0, -1})),
                packer -> uncheck(() -> packer.packDouble(Double.NaN)),
                packer -> uncheck(() -> packer.packDouble(Double.NEGATIVE_INFINITY)),
                // Keys JSON cannot hold: Jackson's reader dropped an array key's entry, so {[1]: 2} was stored as {}.
                packer -> uncheck(() ->
                        packer.packMapHeader(1).packArrayHeader(1).packInt(1).packInt(2)),
                packer -> uncheck(() -> packer.packMapHeader(1).packNil().packInt(2)),
                packer -> uncheck(() -> packer.packMapHeader(1).packInt(7).packInt(2)),
                packer -> uncheck(() -> packer.packMapHeader(1).packMapHeader(0).packInt(2)),
                // What JSON bodies refuse over HTTP: a string that is not UTF-8, a key given twice.
                packer -> uncheck(
                        () -> packer.packRawStringHeader(2).writePayload(new byte[] {(byte) 0xff, (byte) 0xfe})),
                packer -> uncheck(() -> packer.packMapHeader(1)
                        .packRawStringHeader(2)
                        .writePayload(new byte[] {(byte) 0xc0, (byte) 0xaf})
                        .packInt(1)),
                packer -> uncheck(() -> packer.packMapHeader(2)
                        .packString("a")
                        .packInt(1)
                        .packString("a")
                        .packInt(2)));
        try (SocketClient socket = SocketClient.open()) {
            for (Consumer<MessagePacker> body : bodies) {
                MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
                packer.packMapHeader(3);
                packer.packString("action").packString("message_post");
                packer.packString("headers").packMapHeader(2);
                packer.packString("Client-ID").packString("3381af92-2b9e-11e3-b191-71861300734c");
                packer.packString("X-Project-ID").packString(project);
                packer.packString("body").packMapHeader(2);
                packer.packString("queue_name").packString("unspellable");
                packer.packString("messages").packArrayHeader(1).packMapHeader(2);
                packer.packString("ttl").packInt(60);
                packer.packString("body");
                body.accept(packer);
                socket.sendBinary(packer.toByteArray());
                var answer = socket.next();
                assertEquals(400, answer.status(), answer.document().toString());
            }
            // A whole frame followed by more bytes is refused too, not read up to its end.
            byte[] valid = SocketClient.MESSAGE_PACK.writeValueAsBytes(frame("queue_list", project, body()));
            byte[] trailed = Arrays.copyOf(valid, valid.length + 1);
            trailed[valid.length] = (byte) 0xc0;
            socket.sendBinary(trailed);
            assertEquals(400, socket.next().status());
            // The socket still answers, and nothing was stored.
            assertEquals(200, socket.call(frame("queue_list", project, body())).status());
        }
        Api.as(project).get("/v2/queues/unspellable/stats").then().body("messages.total", equalTo(0));
    }

    private interface Packing {
        void pack() throws Exception;
    }

    private static void uncheck(Packing packing) {
        try {
            packing.pack();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
