package io.pigeon.api.v2;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.maintenance.Sweeper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Messages;
import io.pigeon.testing.Receiver;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A queue with {@code _enable_encrypt_messages: true}: its bodies are stored sealed (the test profile configures
 * the keys "retired" and "current") and every read path answers them in clear, exactly as a queue in clear does,
 * including claims, pop and notifications, which Zaqar 15 leaves encrypted.
 */
@QuarkusTest
class EncryptedQueueTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SECRET = "4111-1111-1111-1111";
    private static final String POSTED = """
            {"messages": [{"ttl": 300, "body": {"card": "%1$s"}}, {"ttl": 300, "body": "caf\u00e9 \u2603 %1$s"},
                          {"ttl": 300, "body": ["%1$s", 2.5, null]}]}""".formatted(SECRET);

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    private final String project = Api.newProject();

    private void createQueue(String queue, boolean encrypted) {
        Api.as(project).contentType(ContentType.JSON).body("{\"_enable_encrypt_messages\": " + encrypted + "}")
                .put("/v2/queues/" + queue).then().statusCode(201);
    }

    private void encrypt(String queue, boolean encrypted) {
        Api.as(project).contentType("application/openstack-messaging-v2.0-json-patch")
                .body(("[{\"op\": \"replace\", \"path\": \"/metadata/_enable_encrypt_messages\", \"value\": " + encrypted + "}]")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .patch("/v2/queues/" + queue).then().statusCode(200)
                .body("_enable_encrypt_messages", equalTo(encrypted));
    }

    private List<String> post(String queue, String document) {
        return Api.as(project).contentType(ContentType.JSON).body(document).post("/v2/queues/" + queue + "/messages")
                .then().statusCode(201).extract().jsonPath().getList("resources");
    }

    private List<Row> stored(String queue) {
        List<Row> rows = new ArrayList<>();
        Db.run(pool, """
                SELECT m.body, m.key_id FROM messages m JOIN queues q ON q.id = m.queue_id
                WHERE q.project = $1 AND q.name = $2 ORDER BY m.id""", project, queue).forEach(rows::add);
        return rows;
    }

    @Test
    void everyReadPathAnswersInClearWhatTheDatabaseHoldsSealed() throws Exception {
        createQueue("vault", true);
        createQueue("plain", false);
        Api.as(project).contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/sealed") + "\", \"ttl\": 3600}")
                .post("/v2/queues/vault/subscriptions").then().statusCode(201);
        List<String> hrefs = post("vault", POSTED);
        List<String> plainHrefs = post("plain", POSTED);

        List<Row> rows = stored("vault");
        assertEquals(3, rows.size());
        for (Row row : rows) {
            assertEquals("current", row.getString("key_id"));
            assertFalse(row.getString("body").contains(SECRET), row.getString("body"));
            // Base64 has "c", "a" and "f" (one row in about 1,100 holds "caf"), never "\u00e9".
            assertFalse(row.getString("body").contains("caf\u00e9"), row.getString("body"));
        }
        assertNull(stored("plain").get(0).getString("key_id"));

        // By id, by ids, listed (v2 and v1.1): the same bodies and checksums as the queue in clear answers.
        for (int i = 0; i < 3; i++) {
            Response sealed = Api.as(project).get(hrefs.get(i));
            Response clear = Api.as(project).get(plainHrefs.get(i));
            sealed.then().statusCode(200);
            assertEquals(clear.jsonPath().getString("body"), sealed.jsonPath().getString("body"));
            assertEquals(clear.jsonPath().getString("checksum"), sealed.jsonPath().getString("checksum"));
        }
        Api.as(project).get(hrefs.get(0)).then().body("body.card", equalTo(SECRET));
        String ids = String.join(",", hrefs.stream().map(Messages::id).toList());
        Api.as(project).get("/v2/queues/vault/messages?ids=" + ids).then().statusCode(200)
                .body("messages[0].body.card", equalTo(SECRET))
                .body("messages[1].body", equalTo("caf\u00e9 \u2603 " + SECRET))
                .body("messages[2].body[0]", equalTo(SECRET));
        Api.as(project).get("/v2/queues/vault/messages?echo=true").then().statusCode(200)
                .body("messages.body[0].card", equalTo(SECRET));
        Api.as(project).get("/v1.1/queues/vault/messages?echo=true").then().statusCode(200)
                .body("messages[1].body", equalTo("caf\u00e9 \u2603 " + SECRET));

        // Claimed, read through the claim, popped.
        Response claim = Api.as(project).contentType(ContentType.JSON).body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/vault/claims?limit=2");
        claim.then().statusCode(201).body("messages[0].body.card", equalTo(SECRET))
                .body("messages[1].body", equalTo("caf\u00e9 \u2603 " + SECRET));
        Api.as(project).get(claim.header("Location")).then().statusCode(200)
                .body("messages[0].body.card", equalTo(SECRET));
        Api.as(project).delete("/v2/queues/vault/messages?pop=1").then().statusCode(200)
                .body("messages[0].body[0]", equalTo(SECRET)).body("messages[0].body[1]", equalTo(2.5f));

        // The notifications: never in clear while they wait (whether or not they were sent yet), in clear when sent.
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1 "
                + "AND (strpos(body, $2) > 0 OR strpos(sealed_body, $2) > 0)", project, SECRET));
        Eventually.await("three notifications", Duration.ofSeconds(5), () -> receiver.calls("/sealed").size() == 3);
        List<JsonNode> sent = new ArrayList<>();
        for (Receiver.Call call : receiver.calls("/sealed")) {
            sent.add(JSON.readTree(call.body()).get("body"));
        }
        assertTrue(sent.contains(JSON.readTree("{\"card\": \"" + SECRET + "\"}")), sent.toString());
        assertTrue(sent.contains(JSON.readTree("\"caf\u00e9 \u2603 " + SECRET + "\"")), sent.toString());
        assertTrue(sent.contains(JSON.readTree("[\"" + SECRET + "\", 2.5, null]")), sent.toString());
    }

    @Test
    void aV1PostToAnEncryptingQueueIsSealedToo() {
        createQueue("vault-v1", true);
        Api.as(project).contentType(ContentType.JSON).body("[{\"ttl\": 300, \"body\": {\"pin\": \"" + SECRET + "\"}}]")
                .post("/v1/queues/vault-v1/messages").then().statusCode(201);
        Row row = stored("vault-v1").get(0);
        assertEquals("current", row.getString("key_id"));
        assertFalse(row.getString("body").contains(SECRET));
        Api.as(project).get("/v1/queues/vault-v1/messages?echo=true").then().statusCode(200)
                .body("messages[0].body.pin", equalTo(SECRET));
    }

    @Test
    void keysRotateAndTheSettingChangesWhileOlderMessagesLive() {
        createQueue("rotating", false);
        // A message sealed before the rotation, under the key now retired.
        MessageCipher beforeRotation = new MessageCipher(
                Map.of("retired", "UD+sP5z1K2Isq8RQUN7+rBVLAhwWioy/oA2dw0xOKWI="), Optional.empty());
        MessageCipher.Sealed old = beforeRotation.seal(project, "\"sealed long ago\"");
        Db.run(pool, """
                INSERT INTO messages (queue_id, client_id, ttl, body, key_id, expires_at)
                SELECT id, $3::uuid, 300, $4, $5, now() + interval '300 seconds' FROM queues WHERE project = $1 AND name = $2
                """, project, "rotating", Api.CLIENT_ID, old.text(), old.keyId());
        post("rotating", "{\"messages\": [{\"body\": \"clear, before\"}]}");
        encrypt("rotating", true);
        post("rotating", "{\"messages\": [{\"body\": \"sealed now\"}]}");
        encrypt("rotating", false);
        post("rotating", "{\"messages\": [{\"body\": \"clear, after\"}]}");

        assertEquals(java.util.Arrays.asList("retired", null, "current", null),
                stored("rotating").stream().map(row -> row.getString("key_id")).toList());
        Api.as(project).get("/v2/queues/rotating/messages?echo=true").then().statusCode(200)
                .body("messages.body", contains("sealed long ago", "clear, before", "sealed now", "clear, after"));
    }

    @Test
    void aChangedRowIsA500ThatShowsNothingAndTheOthersStillRead() {
        createQueue("tampered", true);
        List<String> hrefs = post("tampered", "{\"messages\": [{\"body\": \"one\"}, {\"body\": \"two\"}]}");
        String sealed = stored("tampered").get(0).getString("body");
        // The first character is the nonce's, random: one in 64 is already 'A', so the change picks another letter.
        String changed = (sealed.charAt(0) == 'A' ? "B" : "A") + sealed.substring(1);
        Db.run(pool, """
                UPDATE messages m SET body = $3 FROM queues q
                WHERE q.id = m.queue_id AND q.project = $1 AND q.name = 'tampered' AND m.id = $2""",
                project, Messages.rowId(hrefs.get(0)), changed);
        assertEquals(changed, stored("tampered").get(0).getString("body"));
        Api.as(project).get(hrefs.get(0)).then().statusCode(500)
                .body("title", equalTo("Internal server error"))
                .body("description", equalTo("A stored message cannot be decrypted; it has been logged."));
        Api.as(project).get(hrefs.get(1)).then().statusCode(200).body("body", equalTo("two"));
    }

    @Test
    void aDeadLetteredMessageStaysSealed() {
        Api.as(project).contentType(ContentType.JSON).body("{\"_enable_encrypt_messages\": true, \"_max_claim_count\": 1, "
                + "\"_dead_letter_queue\": \"vault-dead\"}").put("/v2/queues/vault-work").then().statusCode(201);
        post("vault-work", "{\"messages\": [{\"body\": {\"card\": \"" + SECRET + "\"}}]}");
        Response claim = Api.as(project).contentType(ContentType.JSON).body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/vault-work/claims");
        claim.then().statusCode(201);
        String claimId = claim.header("Location").substring(claim.header("Location").lastIndexOf('/') + 1);
        Db.run(pool, "UPDATE claims SET expires_at = now() - interval '1 second' WHERE id = $1", UUID.fromString(claimId));
        Db.run(pool, "UPDATE messages SET claim_expires_at = now() - interval '1 second' WHERE claim_id = $1",
                UUID.fromString(claimId));
        sweeper.sweep().await().indefinitely();

        Row row = stored("vault-dead").get(0);
        assertEquals("current", row.getString("key_id"));
        assertFalse(row.getString("body").contains(SECRET));
        Api.as(project).get("/v2/queues/vault-dead/messages?echo=true").then().statusCode(200)
                .body("messages.body.card", containsInAnyOrder(SECRET));
    }
}
