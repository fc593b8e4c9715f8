package io.pigeon.api.v2;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.pigeon.message.DeduplicationKeys;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Deduplication by content and its scope (issue 43, item 2): the queue attributes _content_based_deduplication and
 * _deduplication_scope on the idempotency store, through the v2 API against the real PostgreSQL. A repeat within the
 * window answers 201 with the first message's id and stores nothing; concurrent repeats store once.
 */
@QuarkusTest
class ContentDeduplicationTest {

    @Inject
    Pool pool;

    private final String project = Api.newProject();

    private Response post(String queue, String document) {
        return Api.as(project).contentType(ContentType.JSON).body(document).post("/v2/queues/" + queue + "/messages");
    }

    private void create(String queue, String metadata) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(metadata)
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
    }

    private long stored(String queue) {
        return Db.count(
                pool,
                "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1 AND q.name = $2",
                project,
                queue);
    }

    private static List<String> ids(Response response) {
        response.then().statusCode(201);
        return response.jsonPath().getList("resources");
    }

    @Test
    void aQueueThatDeduplicatesByContentStoresABodyOnceWithinItsWindow() {
        create("c", "{\"_content_based_deduplication\": true}");
        List<String> first = ids(post("c", "{\"messages\": [{\"body\": \"charge 12\"}, {\"body\": {\"a\": 1}}]}"));
        List<String> again = ids(post("c", "{\"messages\": [{\"body\": \"charge 12\"}, {\"body\": {\"a\": 1}}]}"));
        assertEquals(first, again, "a repeat answers the first messages' ids");
        assertEquals(2, stored("c"));
        // Within one post too; another body is another message; an explicit dedup_id overrides the hash.
        List<String> mixed = ids(post(
                "c",
                "{\"messages\": [{\"body\": \"new\"}, {\"body\": \"new\"}, {\"body\": \"charge 12\", \"dedup_id\":"
                        + " \"own\"}]}"));
        assertEquals(mixed.get(0), mixed.get(1));
        assertNotEquals(first.get(0), mixed.get(2));
        assertEquals(4, stored("c"));
        // The hash is the dedup_id: a message naming it explicitly is the same message (as in SQS).
        String hash = DeduplicationKeys.contentHash("charge 12");
        List<String> named = ids(post("c", "{\"messages\": [{\"body\": \"other\", \"dedup_id\": \"" + hash + "\"}]}"));
        assertEquals(first.get(0), named.get(0));
        assertEquals(4, stored("c"));
        // The v1.1 and v1 doors post through the same rule.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[{\"ttl\": 300, \"body\": \"charge 12\"}]")
                .post("/v1/queues/c/messages")
                .then()
                .statusCode(201)
                .body(
                        "resources[0]",
                        containsString(first.get(0).substring(first.get(0).lastIndexOf('/') + 1)));
        assertEquals(4, stored("c"));
    }

    @Test
    void withoutTheAttributeTheSameBodyIsStoredEveryTime() {
        post("plain", "{\"messages\": [{\"body\": \"same\"}]}").then().statusCode(201);
        post("plain", "{\"messages\": [{\"body\": \"same\"}]}").then().statusCode(201);
        assertEquals(2, stored("plain"));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM post_keys WHERE project = $1", project));
        // Turned on afterwards, it applies to the posts that follow; turned off, bodies are stored again.
        Api.as(project)
                .contentType("application/openstack-messaging-v2.0-json-patch")
                .body("[{\"op\": \"add\", \"path\": \"/metadata/_content_based_deduplication\", \"value\": true}]"
                        .getBytes(StandardCharsets.UTF_8))
                .patch("/v2/queues/plain")
                .then()
                .statusCode(200)
                .body("_content_based_deduplication", equalTo(true));
        post("plain", "{\"messages\": [{\"body\": \"same\"}]}").then().statusCode(201);
        post("plain", "{\"messages\": [{\"body\": \"same\"}]}").then().statusCode(201);
        assertEquals(3, stored("plain"));
        Api.as(project)
                .contentType("application/openstack-messaging-v2.0-json-patch")
                .body("[{\"op\": \"remove\", \"path\": \"/metadata/_content_based_deduplication\"}]"
                        .getBytes(StandardCharsets.UTF_8))
                .patch("/v2/queues/plain")
                .then()
                .statusCode(200)
                .body("$", not(hasKey("_content_based_deduplication")));
        post("plain", "{\"messages\": [{\"body\": \"same\"}]}").then().statusCode(201);
        assertEquals(4, stored("plain"));
    }

    @Test
    void sixteenConcurrentPostsOfOneBodyStoreOnceAndAnswerOneId() throws Exception {
        create("burst", "{\"_content_based_deduplication\": true}");
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        URI messages = URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/burst/messages");
        int clients = 16;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try {
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                answers.add(threads.submit(() -> {
                    HttpRequest request = HttpRequest.newBuilder(messages)
                            .header("X-Project-Id", project)
                            .header("Client-ID", Api.CLIENT_ID)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"messages\": [{\"body\": \"once\"}]}"))
                            .build();
                    start.await();
                    return http.send(request, HttpResponse.BodyHandlers.ofString());
                }));
            }
            start.countDown();
            Set<String> bodies = new HashSet<>();
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get();
                assertEquals(201, response.statusCode(), response.body());
                bodies.add(response.body());
            }
            assertEquals(1, bodies.size(), "every repeat answers the first message's id: " + bodies);
        } finally {
            threads.shutdownNow();
        }
        assertEquals(1, stored("burst"));
    }

    @Test
    void aGroupScopedQueueRemembersADedupIdPerGroup() {
        create("scoped", "{\"_deduplication_scope\": \"group\", \"_content_based_deduplication\": true}");
        List<String> first = ids(post(
                "scoped",
                "{\"messages\": [{\"body\": 1, \"dedup_id\": \"d\", \"group\": \"a\"},"
                        + " {\"body\": 2, \"dedup_id\": \"d\", \"group\": \"b\"},"
                        + " {\"body\": 3, \"dedup_id\": \"d\"}]}"));
        assertEquals(3, new HashSet<>(first).size(), "one dedup_id in two groups and none: three messages");
        List<String> again = ids(post(
                "scoped",
                "{\"messages\": [{\"body\": 9, \"dedup_id\": \"d\", \"group\": \"b\"},"
                        + " {\"body\": \"x\", \"group\": \"a\"}, {\"body\": \"x\", \"group\": \"b\"},"
                        + " {\"body\": \"x\", \"group\": \"a\"}]}"));
        assertEquals(first.get(1), again.get(0), "a repeat within its group answers the first id");
        assertNotEquals(again.get(1), again.get(2), "the same content in two groups is two messages");
        assertEquals(again.get(1), again.get(3));
        assertEquals(5, stored("scoped"));
        // The same dedup_id on a queue-scoped queue is one message whatever the group.
        create("queue-scoped", "{}");
        List<String> queueScoped = ids(post(
                "queue-scoped",
                "{\"messages\": [{\"body\": 1, \"dedup_id\": \"d\", \"group\": \"a\"},"
                        + " {\"body\": 2, \"dedup_id\": \"d\", \"group\": \"b\"}]}"));
        assertEquals(queueScoped.get(0), queueScoped.get(1));
        assertEquals(1, stored("queue-scoped"));
    }

    @Test
    void theAttributesAreShownWhenSetAndCheckedNamingTheirBounds() {
        create("shown", "{\"_content_based_deduplication\": true, \"_deduplication_scope\": \"group\"}");
        Api.as(project)
                .get("/v2/queues/shown")
                .then()
                .statusCode(200)
                .body("_content_based_deduplication", equalTo(true))
                .body("_deduplication_scope", equalTo("group"));
        Api.as(project)
                .get("/v2/queues/c")
                .then()
                .body("$", not(hasKey("_content_based_deduplication")))
                .body("$", not(hasKey("_deduplication_scope")));
        for (String bad : List.of(
                "{\"_content_based_deduplication\": \"true\"}",
                "{\"_content_based_deduplication\": 1}",
                "{\"_deduplication_scope\": \"messageGroup\"}",
                "{\"_deduplication_scope\": true}")) {
            String attribute = bad.substring(2, bad.indexOf('"', 2));
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(bad)
                    .put("/v2/queues/bad")
                    .then()
                    .statusCode(400)
                    .body("description", containsString(attribute));
        }
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1 AND name = 'bad'", project));
    }
}
