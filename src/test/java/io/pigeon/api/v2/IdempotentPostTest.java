package io.pigeon.api.v2;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.message.MessageIds;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.HeldPosts;
import io.pigeon.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Idempotent posts (issue 29, item 4): the Idempotency-Key header and each message's dedup_id, remembered per queue
 * for its _dedup_window_seconds, against the real PostgreSQL.
 */
@QuarkusTest
class IdempotentPostTest {

    private static final String TWO = "{\"messages\": [{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}]}";

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    private final String project = Api.newProject();

    private Response post(String version, String queue, String key, String document) {
        var request = Api.as(project).contentType(ContentType.JSON).body(document);
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return request.post("/" + version + "/queues/" + queue + "/messages");
    }

    private Response post(String queue, String key, String document) {
        return post("v2", queue, key, document);
    }

    private long stored(String queue) {
        return Db.count(
                pool,
                "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1 AND q.name = $2",
                project,
                queue);
    }

    private static void refused(Response response, String field) {
        response.then()
                .statusCode(400)
                .contentType("application/json")
                .body("title", not(equalTo(null)))
                .body("description", containsString(field));
    }

    @Test
    void aRetryWithTheSameKeyAnswersTheSameIdsAndStoresOnce() {
        Response first = post("q", "order-1", TWO);
        first.then().statusCode(201);
        Response again = post("q", "order-1", TWO);
        again.then().statusCode(201);
        assertEquals(first.jsonPath().getList("resources"), again.jsonPath().getList("resources"));
        assertEquals(first.header("Location"), again.header("Location"));
        assertEquals(2, stored("q"));
        // The quoted form of RFC 8941 names the same key.
        Response quoted = post("q", "\"order-1\"", TWO);
        assertEquals(first.jsonPath().getList("resources"), quoted.jsonPath().getList("resources"));
        // Another key is another post.
        Response other = post("q", "order-2", TWO);
        assertNotEquals(first.jsonPath().getList("resources"), other.jsonPath().getList("resources"));
        assertEquals(4, stored("q"));
    }

    @Test
    void theKeyReusedWithOtherMessagesIsRefusedAndStoresNothing() {
        post("q", "k", TWO).then().statusCode(201);
        post("q", "k", "{\"messages\": [{\"ttl\": 300, \"body\": 3}]}")
                .then()
                .statusCode(422)
                .contentType("application/json")
                .body("title", equalTo("Idempotency key reused"))
                .body("description", containsString("Idempotency-Key k"));
        assertEquals(2, stored("q"));
    }

    @Test
    void sixteenConcurrentRepeatsStoreOnceAndAllAnswerTheSameIds() throws Exception {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        URI messages = URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/burst/messages");
        int clients = 16;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try {
            List<Callable<HttpResponse<String>>> posts = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                posts.add(() -> {
                    HttpRequest request = HttpRequest.newBuilder(messages)
                            .header("X-Project-Id", project)
                            .header("Client-ID", Api.CLIENT_ID)
                            .header("Content-Type", "application/json")
                            .header("Idempotency-Key", "burst-1")
                            .POST(HttpRequest.BodyPublishers.ofString(TWO))
                            .build();
                    start.await();
                    return http.send(request, HttpResponse.BodyHandlers.ofString());
                });
            }
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (Callable<HttpResponse<String>> post : posts) {
                answers.add(threads.submit(post));
            }
            start.countDown();
            Set<String> locations = new HashSet<>();
            Set<String> bodies = new HashSet<>();
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get();
                assertEquals(201, response.statusCode(), response.body());
                locations.add(response.headers().firstValue("Location").orElseThrow());
                bodies.add(response.body());
            }
            assertEquals(1, locations.size(), "every repeat answers the first post's ids: " + locations);
            assertEquals(1, bodies.size(), "every repeat answers the first post's resources: " + bodies);
        } finally {
            threads.shutdownNow();
        }
        assertEquals(2, stored("burst"));
    }

    @Test
    void aPostWhoseAnswerIsLostIsRetriedAndStoredOnce() throws Exception {
        byte[] content = TWO.getBytes(StandardCharsets.UTF_8);
        String head = "POST /v2/queues/cut/messages HTTP/1.1\r\nHost: localhost\r\nX-Project-Id: " + project
                + "\r\nClient-ID: " + Api.CLIENT_ID + "\r\nContent-Type: application/json\r\n"
                + "Idempotency-Key: cut-1\r\nContent-Length: " + content.length + "\r\n\r\n";
        // The post is held in flight (its insert waits for a lock) while its connection is cut, so that it is cut
        // after the server took the post and before it could answer, whatever the machine's speed.
        try (HeldPosts held = HeldPosts.hold(pool)) {
            try (Socket socket = new Socket(RestAssured.baseURI.replace("http://", ""), RestAssured.port)) {
                OutputStream out = socket.getOutputStream();
                out.write(head.getBytes(StandardCharsets.ISO_8859_1));
                out.write(content);
                out.flush();
                held.awaitOneHeld();
            }
        }
        // The post went on without its client: it is stored, and its answer was never read.
        Eventually.await("the post whose connection was cut, stored", Duration.ofSeconds(10), () -> stored("cut") == 2);
        List<Long> ids = Db.run(
                        pool,
                        "SELECT m.id FROM messages m JOIN queues q ON q.id = m.queue_id "
                                + "WHERE q.project = $1 AND q.name = 'cut' ORDER BY m.id",
                        project)
                .stream()
                .map(row -> row.getLong(0))
                .toList();
        Response retried = post("cut", "cut-1", TWO);
        retried.then().statusCode(201);
        assertEquals(2, stored("cut"));
        List<String> resources = retried.jsonPath().getList("resources");
        assertEquals(2, resources.size());
        assertEquals(
                ids.stream()
                        .map(id -> "/v2/queues/cut/messages/" + MessageIds.format(id))
                        .toList(),
                resources,
                "the retry answers the ids the lost answer carried");
        // The same two messages: a get by the answered ids finds both, with their bodies.
        Api.as(project)
                .get(retried.header("Location").replace(RestAssured.baseURI + ":" + RestAssured.port, ""))
                .then()
                .statusCode(200)
                .body("messages.body", equalTo(List.of(1, 2)));
    }

    @Test
    void aDedupIdStoresOneMessageWithinAPostAndAcrossPosts() {
        Response first = post(
                "d",
                null,
                "{\"messages\": [{\"body\": \"a\", \"dedup_id\": \"x\"}, {\"body\": \"b\", \"dedup_id\": \"y\"},"
                        + " {\"body\": \"c\", \"dedup_id\": \"x\"}, {\"body\": \"d\"}, {\"body\": \"e\", \"dedup_id\": null}]}");
        first.then().statusCode(201);
        List<String> firstIds = first.jsonPath().getList("resources");
        assertEquals(5, firstIds.size());
        assertEquals(firstIds.get(0), firstIds.get(2), "a repeated dedup_id answers the first message's id");
        assertEquals(4, new HashSet<>(firstIds).size());
        assertEquals(4, stored("d"));
        Response second = post(
                "d",
                null,
                "{\"messages\": [{\"body\": \"other\", \"dedup_id\": \"y\"}, {\"body\": \"f\", \"dedup_id\": \"z\"}]}");
        second.then().statusCode(201);
        List<String> secondIds = second.jsonPath().getList("resources");
        assertEquals(firstIds.get(1), secondIds.get(0));
        assertEquals(5, stored("d"));
        // The message remembered is the first one, body and all.
        Api.as(project).get(secondIds.get(0)).then().statusCode(200).body("body", equalTo("b"));
        // A dedup_id is the queue's: another queue stores its own.
        post("other", null, "{\"messages\": [{\"body\": \"b\", \"dedup_id\": \"y\"}]}")
                .then()
                .statusCode(201);
        assertEquals(1, stored("other"));
    }

    @Test
    void aPostKeyAndDedupIdsTogether() {
        String document = "{\"messages\": [{\"body\": 1, \"dedup_id\": \"m1\"}, {\"body\": 2, \"dedup_id\": \"m2\"}]}";
        Response first = post("both", "post-1", document);
        // Another post, another key, repeating one message: only the new one is stored.
        Response second = post(
                "both",
                "post-2",
                "{\"messages\": [{\"body\": 2, \"dedup_id\": \"m2\"}, {\"body\": 3, \"dedup_id\": \"m3\"}]}");
        second.then().statusCode(201);
        assertEquals(
                first.jsonPath().getList("resources").get(1),
                second.jsonPath().getList("resources").get(0));
        assertEquals(3, stored("both"));
        Response repeated = post(
                "both",
                "post-2",
                "{\"messages\": [{\"body\": 2, \"dedup_id\": \"m2\"}, {\"body\": 3, \"dedup_id\": \"m3\"}]}");
        assertEquals(second.jsonPath().getList("resources"), repeated.jsonPath().getList("resources"));
        assertEquals(3, stored("both"));
    }

    @Test
    void deletedMessagesDoNotForgetTheirKeyWithinTheWindow() {
        Response first = post("gone", "g-1", TWO);
        first.then().statusCode(201);
        Api.as(project).delete("/v2/queues/gone/messages?pop=2").then().statusCode(200);
        assertEquals(0, stored("gone"));
        Response again = post("gone", "g-1", TWO);
        again.then().statusCode(201);
        assertEquals(first.header("Location"), again.header("Location"));
        assertEquals(0, stored("gone"));
    }

    @Test
    void afterTheWindowARepeatStoresAgainAndTheSweeperForgetsTheKey() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_dedup_window_seconds\": 1}")
                .put("/v2/queues/short")
                .then()
                .statusCode(201);
        Api.as(project).get("/v2/queues/short").then().body("_dedup_window_seconds", equalTo(1));
        Response first = post("short", "w-1", TWO);
        Response second = post("short", null, "{\"messages\": [{\"body\": 9, \"dedup_id\": \"once\"}]}");
        assertEquals(3, stored("short"));
        // By the database clock, which is the one the window is measured with.
        Eventually.await(
                "the window ended",
                Duration.ofSeconds(10),
                () -> Db.count(
                                pool,
                                "SELECT count(*) FROM post_keys WHERE project = $1 AND expires_at > now()",
                                project)
                        == 0);
        Response again = post("short", "w-1", TWO);
        again.then().statusCode(201);
        assertNotEquals(first.header("Location"), again.header("Location"));
        Response secondAgain = post("short", null, "{\"messages\": [{\"body\": 9, \"dedup_id\": \"once\"}]}");
        assertNotEquals(second.header("Location"), secondAgain.header("Location"));
        assertEquals(6, stored("short"));
        // The keys taken again are remembered for the window; once it ends the sweeper deletes them.
        Eventually.await(
                "the window ended again",
                Duration.ofSeconds(10),
                () -> Db.count(
                                pool,
                                "SELECT count(*) FROM post_keys WHERE project = $1 AND expires_at > now()",
                                project)
                        == 0);
        sweeper.sweep().await().indefinitely();
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM post_keys WHERE project = $1", project));
    }

    @Test
    void anotherProjectsSameKeyIsIndependent() {
        Response mine = post("shared", "same", TWO);
        String other = Api.newProject();
        Response theirs = Api.as(other)
                .contentType(ContentType.JSON)
                .header("Idempotency-Key", "same")
                .body(TWO)
                .post("/v2/queues/shared/messages");
        theirs.then().statusCode(201);
        assertNotEquals(mine.header("Location"), theirs.header("Location"));
        assertEquals(2, stored("shared"));
        assertEquals(
                2,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1",
                        other));
    }

    @Test
    void badKeysIdsAndWindowsAreRefusedNamingTheFieldAndStoreNothing() {
        refused(post("bad", "k".repeat(256), TWO), "Idempotency-Key");
        refused(post("bad", "two words", TWO), "Idempotency-Key");
        refused(post("bad", "caf\u00e9", TWO), "Idempotency-Key");
        refused(post("bad", "\"quo\\\"te\"", TWO), "Idempotency-Key");
        refused(
                Api.as(project)
                        .contentType(ContentType.JSON)
                        .header("Idempotency-Key", "a")
                        .header("Idempotency-Key", "b")
                        .body(TWO)
                        .post("/v2/queues/bad/messages"),
                "Idempotency-Key");
        refused(
                post("bad", null, "{\"messages\": [{\"body\": 1, \"dedup_id\": \"" + "d".repeat(129) + "\"}]}"),
                "dedup_id");
        refused(post("bad", null, "{\"messages\": [{\"body\": 1, \"dedup_id\": 7}]}"), "dedup_id");
        refused(post("bad", null, "{\"messages\": [{\"body\": 1, \"dedup_id\": \"\"}]}"), "dedup_id");
        refused(post("bad", "fine", "{\"messages\": [{\"body\": 1, \"dedup_id\": \"a b\"}]}"), "dedup_id");
        for (String window : List.of("0", "3601", "\"300\"", "1.5")) {
            refused(
                    Api.as(project)
                            .contentType(ContentType.JSON)
                            .body("{\"_dedup_window_seconds\": " + window + "}")
                            .put("/v2/queues/bad"),
                    "_dedup_window_seconds");
        }
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1", project));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM post_keys WHERE project = $1", project));
        // The longest key and dedup_id are taken.
        post("bad", "k".repeat(255), "{\"messages\": [{\"body\": 1, \"dedup_id\": \"" + "d".repeat(128) + "\"}]}")
                .then()
                .statusCode(201);
    }

    /**
     * An empty Idempotency-Key header is a bad key, not an absent one (sent raw: HTTP clients drop empty headers), on
     * v2 and v1; nothing is stored.
     */
    @Test
    void anEmptyKeyIsRefusedAndStoresNothing() {
        Api.as(project).put("/v1/queues/v1-empty").then().statusCode(201);
        for (String path : List.of("/v2/queues/empty/messages", "/v1/queues/v1-empty/messages")) {
            String document = path.startsWith("/v1/") ? "[{\"ttl\": 300, \"body\": 1}]" : TWO;
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("X-Project-Id", project);
            headers.put("Client-ID", Api.CLIENT_ID);
            headers.put("Content-Type", "application/json");
            headers.put("Idempotency-Key", "");
            RawHttp.Answer answer = RawHttp.send(RestAssured.port, "POST", path, headers, document);
            assertEquals(400, answer.status(), path + ": " + answer);
            assertTrue(answer.isErrorDocument(), path + ": " + answer);
            assertTrue(answer.body().contains("Idempotency-Key"), path + ": " + answer);
        }
        assertEquals(0, stored("empty"));
        assertEquals(0, stored("v1-empty"));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM post_keys WHERE project = $1", project));
    }

    /** A dedup_id of null is no dedup_id: such messages are stored each time, and nothing is remembered. */
    @Test
    void aNullDedupIdIsAbsent() {
        String document = "{\"messages\": [{\"ttl\": 300, \"body\": 1, \"dedup_id\": null}]}";
        post("nulls", null, document).then().statusCode(201);
        post("nulls", null, document).then().statusCode(201);
        assertEquals(2, stored("nulls"));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM post_keys WHERE project = $1", project));
    }

    /** A key holding a comma is one key: the header is never split into several ("given twice"). */
    @Test
    void aKeyWithACommaIsOneKey() {
        Response first = post("commas", "order,1234", TWO);
        first.then().statusCode(201);
        Response again = post("commas", "order,1234", TWO);
        again.then().statusCode(201);
        assertEquals(first.jsonPath().getList("resources"), again.jsonPath().getList("resources"));
        assertEquals(2, stored("commas"));
        // Not the key before the comma.
        Response other = post("commas", "order", TWO);
        other.then().statusCode(201);
        assertNotEquals(first.jsonPath().getList("resources"), other.jsonPath().getList("resources"));
        assertEquals(4, stored("commas"));
    }

    @Test
    void aQueueShowsItsWindowOnlyWhenItSetsOne() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/queues/plain")
                .then()
                .statusCode(201);
        Api.as(project).get("/v2/queues/plain").then().statusCode(200).body("$", not(hasKey("_dedup_window_seconds")));
    }

    @Test
    void v11AndV1PostsTakeKeysToo() {
        Response first = post("v1.1", "old", "k11", TWO);
        first.then().statusCode(201);
        Response again = post("v1.1", "old", "k11", TWO);
        assertEquals(first.header("Location"), again.header("Location"));
        assertEquals(2, stored("old"));

        String v1 =
                "[{\"ttl\": 300, \"body\": 1, \"dedup_id\": \"one\"}, {\"ttl\": 300, \"body\": 1, \"dedup_id\": \"one\"}]";
        // v1 posts only to an existing queue: a post to a missing one remembers nothing.
        post("v1", "older", "k1", v1).then().statusCode(404);
        Api.as(project).put("/v1/queues/older").then().statusCode(201);
        Response v1First = post("v1", "older", "k1", v1);
        v1First.then().statusCode(201).body("partial", equalTo(false));
        List<String> ids = v1First.jsonPath().getList("resources");
        assertEquals(ids.get(0), ids.get(1));
        Response v1Again = post("v1", "older", "k1", v1);
        assertEquals(v1First.header("Location"), v1Again.header("Location"));
        assertEquals(1, stored("older"));
    }
}
