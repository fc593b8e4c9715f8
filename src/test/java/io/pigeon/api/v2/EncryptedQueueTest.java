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
import io.pigeon.claim.ClaimService;
import io.pigeon.maintenance.Sweeper;
import io.pigeon.message.MessageService;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.HeldPosts;
import io.pigeon.testing.Messages;
import io.pigeon.testing.Receiver;
import io.pigeon.testing.Version1Seal;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.hamcrest.Matchers;
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
    /** The test profile's key "retired" (see application.properties). */
    private static final String RETIRED_KEY = "UD+sP5z1K2Isq8RQUN7+rBVLAhwWioy/oA2dw0xOKWI=";

    private static final String SECRET = "4111-1111-1111-1111";
    private static final String POSTED =
            """
            {"messages": [{"ttl": 300, "body": {"card": "%1$s"}}, {"ttl": 300, "body": "caf\u00e9 \u2603 %1$s"},
                          {"ttl": 300, "body": ["%1$s", 2.5, null]}]}"""
                    .formatted(SECRET);

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    @Inject
    ClaimService claimService;

    @Inject
    MessageService messages;

    private final String project = Api.newProject();

    private void createQueue(String queue, boolean encrypted) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_enable_encrypt_messages\": " + encrypted + "}")
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
    }

    private void encrypt(String queue, boolean encrypted) {
        Api.as(project)
                .contentType("application/openstack-messaging-v2.0-json-patch")
                .body(("[{\"op\": \"replace\", \"path\": \"/metadata/_enable_encrypt_messages\", \"value\": "
                                + encrypted + "}]")
                        .getBytes(StandardCharsets.UTF_8))
                .patch("/v2/queues/" + queue)
                .then()
                .statusCode(200)
                .body("_enable_encrypt_messages", equalTo(encrypted));
    }

    private List<String> post(String queue, String document) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body(document)
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getList("resources");
    }

    private List<Row> stored(String queue) {
        List<Row> rows = new ArrayList<>();
        Db.run(
                        pool,
                        """
                SELECT m.body, m.key_id FROM messages m JOIN queues q ON q.id = m.queue_id
                WHERE q.project = $1 AND q.name = $2 ORDER BY m.id""",
                        project,
                        queue)
                .forEach(rows::add);
        return rows;
    }

    @Test
    void everyReadPathAnswersInClearWhatTheDatabaseHoldsSealed() throws Exception {
        createQueue("vault", true);
        createQueue("plain", false);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/sealed") + "\", \"ttl\": 3600}")
                .post("/v2/queues/vault/subscriptions")
                .then()
                .statusCode(201);
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
            assertEquals(
                    clear.jsonPath().getString("checksum"), sealed.jsonPath().getString("checksum"));
        }
        Api.as(project).get(hrefs.get(0)).then().body("body.card", equalTo(SECRET));
        String ids = String.join(",", hrefs.stream().map(Messages::id).toList());
        Api.as(project)
                .get("/v2/queues/vault/messages?ids=" + ids)
                .then()
                .statusCode(200)
                .body("messages[0].body.card", equalTo(SECRET))
                .body("messages[1].body", equalTo("caf\u00e9 \u2603 " + SECRET))
                .body("messages[2].body[0]", equalTo(SECRET));
        Api.as(project)
                .get("/v2/queues/vault/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.body[0].card", equalTo(SECRET));
        Api.as(project)
                .get("/v1.1/queues/vault/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages[1].body", equalTo("caf\u00e9 \u2603 " + SECRET));

        // Claimed, read through the claim, popped.
        Response claim = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/vault/claims?limit=2");
        claim.then()
                .statusCode(201)
                .body("messages[0].body.card", equalTo(SECRET))
                .body("messages[1].body", equalTo("caf\u00e9 \u2603 " + SECRET));
        Api.as(project)
                .get(claim.header("Location"))
                .then()
                .statusCode(200)
                .body("messages[0].body.card", equalTo(SECRET));
        Api.as(project)
                .delete("/v2/queues/vault/messages?pop=1")
                .then()
                .statusCode(200)
                .body("messages[0].body[0]", equalTo(SECRET))
                .body("messages[0].body[1]", equalTo(2.5f));

        // The notifications: never in clear while they wait (whether or not they were sent yet), in clear when sent.
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM dispatch_groups WHERE project = $1 "
                                + "AND (strpos(body, $2) > 0 OR strpos(sealed_body, $2) > 0)",
                        project,
                        SECRET));
        Eventually.await(
                "three notifications",
                Duration.ofSeconds(5),
                () -> receiver.calls("/sealed").size() == 3);
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
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[{\"ttl\": 300, \"body\": {\"pin\": \"" + SECRET + "\"}}]")
                .post("/v1/queues/vault-v1/messages")
                .then()
                .statusCode(201);
        Row row = stored("vault-v1").get(0);
        assertEquals("current", row.getString("key_id"));
        assertFalse(row.getString("body").contains(SECRET));
        Api.as(project)
                .get("/v1/queues/vault-v1/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages[0].body.pin", equalTo(SECRET));
    }

    @Test
    void keysRotateAndTheSettingChangesWhileOlderMessagesLive() {
        createQueue("rotating", false);
        // A message sealed before the rotation, under the key now retired.
        // Stored by an earlier release: version 1, the project alone as associated data.
        String old = Version1Seal.seal(RETIRED_KEY, project, "\"sealed long ago\"");
        Db.run(
                pool,
                """
                INSERT INTO messages (queue_id, client_id, ttl, body, key_id, expires_at)
                SELECT id, $3::uuid, 300, $4, $5, now() + interval '300 seconds' FROM queues WHERE project = $1 AND name = $2
                """,
                project,
                "rotating",
                Api.CLIENT_ID,
                old,
                "retired");
        post("rotating", "{\"messages\": [{\"body\": \"clear, before\"}]}");
        encrypt("rotating", true);
        post("rotating", "{\"messages\": [{\"body\": \"sealed now\"}]}");
        encrypt("rotating", false);
        post("rotating", "{\"messages\": [{\"body\": \"clear, after\"}]}");

        assertEquals(
                Arrays.asList("retired", null, "current", null),
                stored("rotating").stream().map(row -> row.getString("key_id")).toList());
        Api.as(project)
                .get("/v2/queues/rotating/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.body", contains("sealed long ago", "clear, before", "sealed now", "clear, after"));
    }

    /** Changes one character of the stored text of message {@code href} (a sealed one); the text now stored. */
    private String tamper(String queue, String href) {
        String sealed = Db.run(
                        pool,
                        """
                SELECT m.body FROM messages m JOIN queues q ON q.id = m.queue_id
                WHERE q.project = $1 AND q.name = $2 AND m.id = $3""",
                        project,
                        queue,
                        Messages.rowId(href))
                .iterator()
                .next()
                .getString("body");
        // Ten characters from the end: in the tag, never base64's padding.
        int at = sealed.length() - 10;
        String changed = sealed.substring(0, at) + (sealed.charAt(at) == 'A' ? 'B' : 'A') + sealed.substring(at + 1);
        Db.run(
                pool,
                """
                UPDATE messages m SET body = $4 FROM queues q
                WHERE q.id = m.queue_id AND q.project = $1 AND q.name = $2 AND m.id = $3""",
                project,
                queue,
                Messages.rowId(href),
                changed);
        return changed;
    }

    private List<Long> claimedBy(String claimHref) {
        List<Long> ids = new ArrayList<>();
        Db.run(pool, "SELECT id FROM messages WHERE claim_id = $1 ORDER BY id", UUID.fromString(Messages.id(claimHref)))
                .forEach(row -> ids.add(row.getLong("id")));
        return ids;
    }

    private static List<Long> rowIds(List<String> hrefs) {
        return hrefs.stream().map(Messages::rowId).toList();
    }

    private long setAside(String href) {
        return Db.count(pool, "SELECT count(*) FROM messages_set_aside WHERE id = $1", Messages.rowId(href));
    }

    @Test
    void aChangedRowIsLeftOutOfEveryReadWhileTheOthersReadAndNothingChanges() {
        createQueue("tampered", true);
        List<String> hrefs =
                post("tampered", "{\"messages\": [{\"body\": \"one\"}, {\"body\": \"two\"}, {\"body\": \"three\"}]}");
        String changed = tamper("tampered", hrefs.get(1));

        Api.as(project).get(hrefs.get(1)).then().statusCode(404);
        Api.as(project).get(hrefs.get(0)).then().statusCode(200).body("body", equalTo("one"));
        String ids = String.join(",", hrefs.stream().map(Messages::id).toList());
        Api.as(project)
                .get("/v2/queues/tampered/messages?ids=" + ids)
                .then()
                .statusCode(200)
                .body("messages.body", contains("one", "three"));
        Api.as(project)
                .get("/v2/queues/tampered/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.body", contains("one", "three"));
        Api.as(project)
                .get("/v1.1/queues/tampered/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.body", contains("one", "three"));
        Api.as(project)
                .get("/v1/queues/tampered/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.body", contains("one", "three"));
        // Paged by two: the first page read two rows and answers one; the next starts after both, not after "one".
        Response first = Api.as(project).get("/v2/queues/tampered/messages?echo=true&limit=2");
        first.then().statusCode(200).body("messages.body", contains("one"));
        Api.as(project)
                .get(first.jsonPath().getString("links[0].href"))
                .then()
                .statusCode(200)
                .body("messages.body", contains("three"));

        // Reads change nothing: every row is there as it was.
        assertEquals(changed, stored("tampered").get(1).getString("body"));
        assertEquals(3, stored("tampered").size());
        assertEquals(0, setAside(hrefs.get(1)));
    }

    @Test
    void aPopAnswersWhatOpensAndSetsTheChangedRowAsideUnchanged() {
        createQueue("pop-tampered", true);
        List<String> hrefs = post(
                "pop-tampered", "{\"messages\": [{\"body\": \"one\"}, {\"body\": \"two\"}, {\"body\": \"three\"}]}");
        String changed = tamper("pop-tampered", hrefs.get(1));

        Api.as(project)
                .delete("/v2/queues/pop-tampered/messages?pop=3")
                .then()
                .statusCode(200)
                .body("messages.body", contains("one", "three"));
        assertEquals(0, stored("pop-tampered").size(), "the two answered and the one set aside are gone");
        Row aside = Db.run(
                        pool, "SELECT body, key_id FROM messages_set_aside WHERE id = $1", Messages.rowId(hrefs.get(1)))
                .iterator()
                .next();
        assertEquals(changed, aside.getString("body"), "kept as it was stored");
        assertEquals("current", aside.getString("key_id"));
    }

    @Test
    void aClaimHoldsExactlyTheMessagesItAnswers() {
        createQueue("claim-tampered", true);
        List<String> hrefs = post(
                "claim-tampered",
                "{\"messages\": [{\"body\": \"one\"}, {\"body\": \"two\"}, "
                        + "{\"body\": \"three\"}, {\"body\": \"four\"}]}");
        tamper("claim-tampered", hrefs.get(1));

        // The claim took three rows; the one that does not open is set aside, and the claim holds the other two.
        Response claim = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/claim-tampered/claims?limit=3");
        claim.then().statusCode(201).body("messages.body", contains("one", "three"));
        List<Long> answered = rowIds(List.of(hrefs.get(0), hrefs.get(2)));
        assertEquals(answered, claimedBy(claim.header("Location")));
        assertEquals(
                answered,
                List.of(Db.run(
                                pool,
                                "SELECT message_ids FROM claims WHERE id = $1",
                                UUID.fromString(Messages.id(claim.header("Location"))))
                        .iterator()
                        .next()
                        .getArrayOfLongs(0)));
        assertEquals(1, setAside(hrefs.get(1)));
        assertEquals(3, stored("claim-tampered").size());
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/claim-tampered/claims")
                .then()
                .statusCode(201)
                .body("messages.body", contains("four"));

        // Read through its claim, a claimed row changed since is left out, and stays claimed as it was.
        tamper("claim-tampered", hrefs.get(2));
        Api.as(project).get(claim.header("Location")).then().statusCode(200).body("messages.body", contains("one"));
        assertEquals(answered, claimedBy(claim.header("Location")));

        // A claim that took only a row that does not open took nothing: no claim is left that nobody was told of.
        List<String> more = post("claim-tampered", "{\"messages\": [{\"body\": \"five\"}]}");
        tamper("claim-tampered", more.get(0));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/claim-tampered/claims")
                .then()
                .statusCode(204);
        assertEquals(
                2,
                Db.count(
                        pool,
                        "SELECT count(*) FROM claims c JOIN queues q ON q.id = c.queue_id "
                                + "WHERE q.project = $1 AND q.name = 'claim-tampered'",
                        project));
        assertEquals(1, setAside(more.get(0)));
    }

    @Test
    void claimsSharingAStatementEachHoldExactlyWhatTheyAnswer() throws Exception {
        createQueue("shared-tampered", true);
        List<String> hrefs = post(
                "shared-tampered",
                "{\"messages\": [{\"body\": \"one\"}, {\"body\": \"two\"}, "
                        + "{\"body\": \"three\"}, {\"body\": \"four\"}, {\"body\": \"five\"}, {\"body\": \"six\"}]}");
        tamper("shared-tampered", hrefs.get(1));
        Function<Integer, Response> claim = limit -> Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/shared-tampered/claims?limit=" + limit);

        // The first claim is held at its insert of the claim by a lock on the table; two more wait behind it and then
        // share the next statement.
        SqlConnection holder = pool.getConnection().await().indefinitely();
        Transaction held = holder.begin().await().indefinitely();
        ExecutorService clients = Executors.newFixedThreadPool(3);
        Future<Response> first;
        Future<Response> second;
        Future<Response> third;
        try {
            holder.query("LOCK TABLE claims IN SHARE MODE").execute().await().indefinitely();
            first = clients.submit(() -> claim.apply(1));
            // pg_stat_activity keeps the statement's first 1,024 bytes: the claim statement is known by its start.
            Eventually.await(
                    "a claim held by the lock",
                    Duration.ofSeconds(10),
                    () -> Db.count(
                                    pool,
                                    """
                    SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                    AND wait_event_type = 'Lock' AND query LIKE 'WITH q AS (SELECT id, CASE WHEN metadata%'""")
                            > 0);
            second = clients.submit(() -> claim.apply(2));
            third = clients.submit(() -> claim.apply(2));
            Eventually.await("two claims waiting", Duration.ofSeconds(10), () -> claimService.claimsWaiting() == 2);
        } finally {
            held.rollback().await().indefinitely();
            holder.close().await().indefinitely();
        }
        Response alone = first.get(30, TimeUnit.SECONDS);
        Response a = second.get(30, TimeUnit.SECONDS);
        Response b = third.get(30, TimeUnit.SECONDS);
        clients.shutdown();

        alone.then().statusCode(201).body("messages.body", contains("one"));
        a.then().statusCode(201);
        b.then().statusCode(201);
        // Whichever came first got "two" (set aside) and "three"; the other "four" and "five"; "six" is still free.
        List<List<String>> answers =
                List.of(a.jsonPath().getList("messages.body"), b.jsonPath().getList("messages.body"));
        assertTrue(answers.containsAll(List.of(List.of("three"), List.of("four", "five"))), answers.toString());
        for (Response each : List.of(alone, a, b)) {
            List<Long> answered = each.jsonPath().<String>getList("messages.href").stream()
                    .map(Messages::rowId)
                    .toList();
            assertEquals(answered, claimedBy(each.header("Location")), "claimed, exactly as answered");
        }
        assertEquals(1, setAside(hrefs.get(1)));
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages WHERE id = $1 AND claim_id IS NOT NULL",
                        Messages.rowId(hrefs.get(5))),
                "nothing more was claimed");
        assertEquals(
                1,
                Db.count(pool, "SELECT count(DISTINCT created_at) FROM claims WHERE id = ANY($1::uuid[])", (Object)
                        new UUID[] {
                            UUID.fromString(Messages.id(a.header("Location"))),
                            UUID.fromString(Messages.id(b.header("Location")))
                        }),
                "the two shared one statement");
    }

    @Test
    void claimsOnTwoQueuesSharingAStatementEachSetAsideTheirOwnQueuesUnreadableRows() throws Exception {
        createQueue("held-plain", false);
        post("held-plain", "{\"messages\": [{\"body\": \"held\"}]}");
        Map<String, List<String>> hrefs = new HashMap<>();
        for (String queue : List.of("tampered-a", "tampered-b")) {
            createQueue(queue, true);
            hrefs.put(
                    queue,
                    post(
                            queue,
                            "{\"messages\": [{\"body\": \"" + queue + " one\"}, {\"body\": \"" + queue
                                    + " two\"}, {\"body\": \"" + queue + " three\"}]}"));
            tamper(queue, hrefs.get(queue).get(1));
        }
        Function<String, Response> claim = queue -> Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/" + queue + "/claims?limit=2");

        // A claim on a third queue is held at its insert of the claim by a lock on the table; the claims on the two
        // tampered queues wait behind it (one database) and then share the next statement.
        SqlConnection holder = pool.getConnection().await().indefinitely();
        Transaction held = holder.begin().await().indefinitely();
        ExecutorService clients = Executors.newFixedThreadPool(3);
        Future<Response> first;
        Future<Response> a;
        Future<Response> b;
        try {
            holder.query("LOCK TABLE claims IN SHARE MODE").execute().await().indefinitely();
            first = clients.submit(() -> claim.apply("held-plain"));
            Eventually.await(
                    "a claim held by the lock",
                    Duration.ofSeconds(10),
                    () -> Db.count(
                                    pool,
                                    """
                    SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                    AND wait_event_type = 'Lock' AND query LIKE 'WITH q AS (SELECT id, CASE WHEN metadata%'""")
                            > 0);
            a = clients.submit(() -> claim.apply("tampered-a"));
            b = clients.submit(() -> claim.apply("tampered-b"));
            Eventually.await("two claims waiting", Duration.ofSeconds(10), () -> claimService.claimsWaiting() == 2);
        } finally {
            held.rollback().await().indefinitely();
            holder.close().await().indefinitely();
        }
        first.get(30, TimeUnit.SECONDS).then().statusCode(201).body("messages.body", contains("held"));
        Map<String, Response> answers =
                Map.of("tampered-a", a.get(30, TimeUnit.SECONDS), "tampered-b", b.get(30, TimeUnit.SECONDS));
        clients.shutdown();

        for (Map.Entry<String, Response> answer : answers.entrySet()) {
            String queue = answer.getKey();
            Response response = answer.getValue();
            response.then().statusCode(201).body("messages.body", contains(queue + " one"));
            assertEquals(
                    List.of(Messages.rowId(hrefs.get(queue).get(0))),
                    claimedBy(response.header("Location")),
                    queue + ": claimed, exactly as answered");
            assertEquals(1, setAside(hrefs.get(queue).get(1)), queue + ": its unreadable row set aside");
        }
        assertEquals(
                1,
                Db.count(pool, "SELECT count(DISTINCT created_at) FROM claims WHERE id = ANY($1::uuid[])", (Object)
                        answers.values().stream()
                                .map(response -> UUID.fromString(Messages.id(response.header("Location"))))
                                .toArray(UUID[]::new)),
                "the two shared one statement");
    }

    @Test
    void postsToSealedAndClearQueuesSharingAStatementAreEachStoredAsTheirQueueAsks() throws Exception {
        createQueue("known-vault", true);
        createQueue("new-vault", true);
        createQueue("open", false);
        createQueue("holder", false);
        // This replica learns that known-vault seals; new-vault it has never posted to.
        post("known-vault", "{\"messages\": [{\"body\": \"learnt\"}]}");
        String document = "{\"messages\": [{\"body\": {\"card\": \"" + SECRET + "\"}}]}";

        // Sealed for one queue, clear for the other: one statement, which stores both (one created_at).
        List<List<String>> first = postBehindAHeldOne(List.of("known-vault", "open"), document);
        assertEquals(
                1,
                Db.count(pool, "SELECT count(DISTINCT created_at) FROM messages WHERE id = ANY($1::bigint[])", (Object)
                        rowIds(List.of(first.get(0).get(0), first.get(1).get(0)))
                                .toArray(Long[]::new)),
                "the two posts shared one statement");
        // new-vault's post is sent in clear, which its queue refuses: it is sealed and sent again, by itself.
        postBehindAHeldOne(List.of("new-vault", "open"), document);

        for (String queue : List.of("known-vault", "new-vault", "open")) {
            List<Row> rows = stored(queue);
            Row last = rows.get(rows.size() - 1);
            boolean sealed = !queue.equals("open");
            assertEquals(sealed ? "current" : null, last.getString("key_id"), queue);
            assertEquals(!sealed, last.getString("body").contains(SECRET), queue + ": " + last.getString("body"));
        }
        for (String href : first.get(0)) {
            Api.as(project).get(href).then().statusCode(200).body("body.card", equalTo(SECRET));
        }
    }

    /** Posts {@code document} to each queue, all waiting behind a held post and then sharing a statement. */
    private List<List<String>> postBehindAHeldOne(List<String> queues, String document) throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(queues.size() + 1);
        try {
            Future<List<String>> held;
            List<Future<List<String>>> together = new ArrayList<>();
            try (HeldPosts holding = HeldPosts.hold(pool)) {
                held = clients.submit(() -> post("holder", document));
                holding.awaitOneHeld();
                for (String queue : queues) {
                    together.add(clients.submit(() -> post(queue, document)));
                }
                Eventually.await(
                        queues.size() + " posts waiting",
                        Duration.ofSeconds(10),
                        () -> messages.postsWaiting() == queues.size());
            }
            held.get(30, TimeUnit.SECONDS);
            List<List<String>> answers = new ArrayList<>();
            for (Future<List<String>> answer : together) {
                answers.add(answer.get(30, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            clients.shutdown();
        }
    }

    @Test
    void aSealedBodyCopiedIntoAnotherQueuesRowDoesNotOpenThere() {
        createQueue("source", true);
        createQueue("elsewhere", true);
        List<String> source = post("source", "{\"messages\": [{\"body\": {\"card\": \"" + SECRET + "\"}}]}");
        List<String> elsewhere = post("elsewhere", "{\"messages\": [{\"body\": \"mine\"}]}");
        Row sealed = stored("source").get(0);
        assertTrue(sealed.getString("body").startsWith("2:source:"), sealed.getString("body"));
        Db.run(
                pool,
                """
                UPDATE messages m SET body = $3, key_id = $4 FROM queues q
                WHERE q.id = m.queue_id AND q.project = $1 AND q.name = 'elsewhere' AND m.id = $2""",
                project,
                Messages.rowId(elsewhere.get(0)),
                sealed.getString("body"),
                sealed.getString("key_id"));

        Api.as(project).get(elsewhere.get(0)).then().statusCode(404);
        Api.as(project)
                .get("/v2/queues/elsewhere/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages", Matchers.empty());
        Api.as(project).get(source.get(0)).then().statusCode(200).body("body.card", equalTo(SECRET));
    }

    @Test
    void aDeadLetteredMessageStaysSealed() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_enable_encrypt_messages\": true, \"_max_claim_count\": 1, "
                        + "\"_dead_letter_queue\": \"vault-dead\"}")
                .put("/v2/queues/vault-work")
                .then()
                .statusCode(201);
        post("vault-work", "{\"messages\": [{\"body\": {\"card\": \"" + SECRET + "\"}}]}");
        Response claim = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/vault-work/claims");
        claim.then().statusCode(201);
        String claimId =
                claim.header("Location").substring(claim.header("Location").lastIndexOf('/') + 1);
        Db.run(
                pool,
                "UPDATE claims SET expires_at = now() - interval '1 second' WHERE id = $1",
                UUID.fromString(claimId));
        Db.run(
                pool,
                "UPDATE messages SET claim_expires_at = now() - interval '1 second' WHERE claim_id = $1",
                UUID.fromString(claimId));
        sweeper.sweep().await().indefinitely();

        Row row = stored("vault-dead").get(0);
        assertEquals("current", row.getString("key_id"));
        assertTrue(row.getString("body").startsWith("2:vault-dead:"), "sealed again for the queue it is in");
        assertFalse(row.getString("body").contains(SECRET));
        Api.as(project)
                .get("/v2/queues/vault-dead/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.body.card", containsInAnyOrder(SECRET));
    }
}
