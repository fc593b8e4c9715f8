package io.pigeon.api.v2;

import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.storage.OneReplicaAtATime;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Dead-letter redrive (Pigeon's extension): {@code POST /v2/queues/{dlq}/redrive} moves a dead-letter queue's messages
 * back where they came from, or to a named queue; its tasks are listed, read and cancelled; bad requests are refused
 * naming the field and its bound, and change nothing; another project sees none of it.
 */
@QuarkusTest
class V2RedriveTest {

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    private final String project = Api.newProject();

    // ---------------------------------------------------------------------------------------------------------------
    // Helpers: messages dead-lettered the way the service does it (claimed as often as the rule allows, released,
    // swept), and tasks followed through the API.
    // ---------------------------------------------------------------------------------------------------------------

    /** Creates {@code source} with a dead-letter rule to {@code dlq} and posts {@code count} numbered messages. */
    private List<String> post(String source, String dlq, int count) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_claim_count\": 1, \"_dead_letter_queue\": \"" + dlq + "\"}")
                .put("/v2/queues/" + source)
                .then()
                .statusCode(201);
        List<String> bodies = new ArrayList<>();
        for (int posted = 0; posted < count; posted += 20) {
            StringBuilder batch = new StringBuilder("{\"messages\": [");
            for (int i = posted; i < Math.min(count, posted + 20); i++) {
                String body = "\"" + source + "-" + i + "\"";
                bodies.add(source + "-" + i);
                batch.append(i == posted ? "" : ",")
                        .append("{\"ttl\": 3600, \"body\": ")
                        .append(body)
                        .append('}');
            }
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(batch.append("]}").toString())
                    .post("/v2/queues/" + source + "/messages")
                    .then()
                    .statusCode(201);
        }
        return bodies;
    }

    /** Claims every message of {@code source} once and releases it: claimed as often as its rule allows. */
    private void claimOutAndRelease(String source) {
        while (true) {
            Response claimed = Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"ttl\": 60}")
                    .post("/v2/queues/" + source + "/claims?limit=20");
            if (claimed.statusCode() == 204) {
                return;
            }
            claimed.then().statusCode(201);
            List<String> ids = claimed.jsonPath().getList("messages.id");
            String location = claimed.header("Location");
            StringBuilder release = new StringBuilder("{\"ids\": [");
            for (int i = 0; i < ids.size(); i++) {
                release.append(i == 0 ? "" : ",").append('"').append(ids.get(i)).append('"');
            }
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(release.append("]}").toString())
                    .post(location + "/release")
                    .then()
                    .statusCode(204);
        }
    }

    /** {@code count} messages of {@code source}, dead-lettered into {@code dlq}; their bodies. */
    private List<String> deadLetter(String source, String dlq, int count) {
        List<String> bodies = post(source, dlq, count);
        claimOutAndRelease(source);
        sweeper.sweep().await().indefinitely();
        return bodies;
    }

    /** The bodies of a queue's messages by id (listed as a client lists them). */
    private Map<String, String> messages(String queue) {
        Map<String, String> found = new TreeMap<>();
        String marker = null;
        while (true) {
            Response page = Api.as(project)
                    .get("/v2/queues/" + queue + "/messages?echo=true&include_claimed=true&limit=20"
                            + (marker == null ? "" : "&marker=" + marker));
            page.then().statusCode(200);
            List<Map<String, Object>> listed = page.jsonPath().getList("messages");
            if (listed == null || listed.isEmpty()) {
                return found;
            }
            for (Map<String, Object> message : listed) {
                found.put((String) message.get("id"), String.valueOf(message.get("body")));
                marker = (String) message.get("id");
            }
        }
    }

    private Response start(String dlq, String body) {
        return Api.as(project).contentType(ContentType.JSON).body(body).post("/v2/queues/" + dlq + "/redrive");
    }

    private JsonPath awaitEnded(String href) {
        JsonPath[] seen = new JsonPath[1];
        Eventually.await("redrive task " + href + " ended", Duration.ofSeconds(30), () -> {
            seen[0] = Api.as(project).get(href).then().statusCode(200).extract().jsonPath();
            return !"running".equals(seen[0].getString("state"));
        });
        return seen[0];
    }

    private long count(String queue) {
        return Db.count(
                pool,
                "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1 AND q.name = $2",
                project,
                queue);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Moving messages back
    // ---------------------------------------------------------------------------------------------------------------

    @Test
    void everyMessageGoesBackToTheQueueItCameFromWithItsIdAndBodyAndAFreshClaimCount() {
        List<String> orders = deadLetter("orders", "dead", 30);
        List<String> invoices = deadLetter("invoices", "dead", 25);
        Map<String, String> dead = messages("dead");
        assertEquals(55, dead.size(), "dead-lettered");

        Response started = start("dead", "{\"rate\": 1000}");
        started.then()
                .statusCode(201)
                .contentType(ContentType.JSON)
                .header("Location", startsWith("/v2/queues/dead/redrive/"))
                .body("queue", equalTo("dead"))
                .body("target", nullValue())
                .body("rate", equalTo(1000))
                .body("state", notNullValue())
                .body("started", notNullValue());
        String href = started.header("Location");
        assertEquals(href, started.jsonPath().getString("href"));

        JsonPath ended = awaitEnded(href);
        assertEquals("done", ended.getString("state"));
        assertEquals(55, ended.getLong("moved"));
        assertEquals(0, ended.getLong("skipped"));
        assertTrue(ended.getString("finished").endsWith("Z"), ended.prettify());

        Map<String, String> backInOrders = messages("orders");
        Map<String, String> backInInvoices = messages("invoices");
        assertEquals(Map.of(), messages("dead"), "left in the dead-letter queue");
        assertEquals(orders.size(), backInOrders.size());
        assertEquals(invoices.size(), backInInvoices.size());
        Map<String, String> back = new TreeMap<>(backInOrders);
        back.putAll(backInInvoices);
        assertEquals(dead, back, "the same ids with the same bodies");
        assertTrue(backInOrders.values().stream().allMatch(body -> body.startsWith("orders-")));
        assertTrue(backInInvoices.values().stream().allMatch(body -> body.startsWith("invoices-")));

        // Claimable again, with a fresh count: the dead-letter rule gives each its one claim again.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60}")
                .post("/v2/queues/orders/claims?limit=20")
                .then()
                .statusCode(201)
                .body("messages", hasSize(20))
                .body("messages.claim_count", everyItem(equalTo(1)));
        Api.as(project)
                .get("/v2/queues/dead/redrive")
                .then()
                .statusCode(200)
                .body("tasks", hasSize(1))
                .body("tasks[0].href", equalTo(href))
                .body("tasks[0].state", equalTo("done"));
    }

    @Test
    void aNamedTargetTakesEveryMessageAndMessagesWithoutASourceAreSkippedOtherwise() {
        deadLetter("first", "graveyard", 5);
        // Posted straight into the dead-letter queue: no source recorded, as for messages dead-lettered before the
        // source was recorded.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(
                        "{\"messages\": [{\"ttl\": 600, \"body\": \"orphan-1\"}, {\"ttl\": 600, \"body\": \"orphan-2\"}]}")
                .post("/v2/queues/graveyard/messages")
                .then()
                .statusCode(201);

        JsonPath back = awaitEnded(start("graveyard", "{\"rate\": 1000}").header("Location"));
        assertEquals("done", back.getString("state"));
        assertEquals(5, back.getLong("moved"));
        assertEquals(2, back.getLong("skipped"));
        assertEquals(2, messages("graveyard").size(), "the two without a source stay");

        Api.as(project).put("/v2/queues/review").then().statusCode(201);
        Response toReview = start("graveyard", "{\"target\": \"review\", \"rate\": 1000}");
        toReview.then().statusCode(201).body("target", equalTo("review"));
        JsonPath reviewed = awaitEnded(toReview.header("Location"));
        assertEquals(2, reviewed.getLong("moved"));
        assertEquals(0, reviewed.getLong("skipped"));
        assertEquals(
                List.of("orphan-1", "orphan-2"),
                new ArrayList<>(messages("review").values()));
        Api.as(project)
                .get("/v2/queues/graveyard/redrive")
                .then()
                .body("tasks", hasSize(2))
                .body("tasks[0].target", equalTo("review"))
                .body("tasks[1].target", nullValue());
    }

    @Test
    void aMessageHeldByALiveClaimIsSkippedAndStays() {
        deadLetter("held-source", "held-dead", 3);
        Response claimed = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300}")
                .post("/v2/queues/held-dead/claims?limit=1");
        claimed.then().statusCode(201);
        JsonPath ended = awaitEnded(start("held-dead", "{}").header("Location"));
        assertEquals(2, ended.getLong("moved"));
        assertEquals(1, ended.getLong("skipped"));
        assertEquals(1, count("held-dead"));
        // The claim still holds it, in the dead-letter queue.
        Api.as(project).get(claimed.header("Location")).then().statusCode(200).body("messages", hasSize(1));
    }

    @Test
    void aClaimWaitingOnTheSourceIsWokenByTheRedrive() throws Exception {
        deadLetter("waited", "waited-dead", 2);
        CompletableFuture<Response> waiting = CompletableFuture.supplyAsync(() -> Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"wait\": 20}")
                .post("/v2/queues/waited/claims?limit=5"));
        Eventually.pause(Duration.ofMillis(500)); // the claim has found nothing and waits
        long startedAt = System.nanoTime();
        start("waited-dead", "{\"rate\": 1000}").then().statusCode(201);
        Response woken = waiting.get(30, TimeUnit.SECONDS);
        long millis = (System.nanoTime() - startedAt) / 1_000_000;
        woken.then().statusCode(201).body("messages", hasSize(2));
        assertTrue(millis < 10_000, "woken " + millis + " ms after the redrive started, not at the end of its wait");
    }

    @Test
    void sealedMessagesGoBackSealedForTheirQueueAndOpenThere() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_claim_count\": 1, \"_dead_letter_queue\": \"sealed-dead\","
                        + " \"_enable_encrypt_messages\": true}")
                .put("/v2/queues/sealed")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 600, \"body\": {\"secret\": 1}}, {\"ttl\": 600, \"body\": \"two\"}]}")
                .post("/v2/queues/sealed/messages")
                .then()
                .statusCode(201);
        claimOutAndRelease("sealed");
        sweeper.sweep().await().indefinitely(); // dead-lettered, then sealed again for the dead-letter queue
        assertEquals(2, messages("sealed-dead").size());

        JsonPath ended = awaitEnded(start("sealed-dead", "{\"rate\": 1000}").header("Location"));
        assertEquals(2, ended.getLong("moved"));
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id "
                                + "WHERE q.project = $1 AND q.name = 'sealed' AND m.key_id IS NULL",
                        project),
                "stored sealed");
        // Invisible until sealed for the queue they are back in: a claim waits, and is woken by the sweep that does it.
        CompletableFuture<Response> waiting = CompletableFuture.supplyAsync(() -> Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"wait\": 20}")
                .post("/v2/queues/sealed/claims?limit=5"));
        Eventually.pause(Duration.ofMillis(500));
        long sweptAt = System.nanoTime();
        sweeper.sweep().await().indefinitely();
        Response woken = waiting.join();
        long millis = (System.nanoTime() - sweptAt) / 1_000_000;
        woken.then().statusCode(201).body("messages.body", containsInAnyOrder(Map.of("secret", 1), "two"));
        assertTrue(millis < 10_000, "woken " + millis + " ms after the sweep, not at the end of its wait");
    }

    // ---------------------------------------------------------------------------------------------------------------
    // One running task per queue, cancel, the queue deleted, messages expiring
    // ---------------------------------------------------------------------------------------------------------------

    @Test
    void aSecondStartWhileOneRunsIsAConflictAndACancelledTaskStaysCancelled() {
        deadLetter("slow", "slow-dead", 10);
        Response first = start("slow-dead", "{\"rate\": 1}");
        first.then().statusCode(201).body("state", equalTo("running")).body("rate", equalTo(1));
        String href = first.header("Location");

        start("slow-dead", "{\"rate\": 1000}")
                .then()
                .statusCode(409)
                .contentType(ContentType.JSON)
                .body("title", equalTo("Resource conflict"))
                .body("description", containsString(first.jsonPath().getString("id")));

        // The task is its queue's: another queue of the project does not name it.
        Api.as(project).put("/v2/queues/slow-other").then().statusCode(201);
        String id = first.jsonPath().getString("id");
        Api.as(project).get("/v2/queues/slow-other/redrive/" + id).then().statusCode(404);
        Api.as(project).delete("/v2/queues/slow-other/redrive/" + id).then().statusCode(404);
        Api.as(project).delete(href).then().statusCode(204);
        JsonPath cancelled =
                Api.as(project).get(href).then().statusCode(200).extract().jsonPath();
        assertEquals("cancelled", cancelled.getString("state"));
        long moved = cancelled.getLong("moved");
        assertTrue(moved < 10, "moved " + moved + " at one a second");
        assertEquals(10 - moved, count("slow-dead"), "what it had not moved stays");
        // Cancelled twice: nothing changes.
        Api.as(project).delete(href).then().statusCode(204);
        Eventually.pause(Duration.ofMillis(1500));
        Api.as(project)
                .get(href)
                .then()
                .statusCode(200)
                .body("state", equalTo("cancelled"))
                .body("moved", equalTo((int) moved));
        assertEquals(10 - moved, count("slow-dead"), "nothing moves after the cancel");

        // Now a new task may start, and takes the rest.
        JsonPath rest = awaitEnded(start("slow-dead", "{\"rate\": 1000}").header("Location"));
        assertEquals(10 - moved, rest.getLong("moved"));
        assertEquals(10, count("slow"));
    }

    @Test
    void aTaskWhoseQueueIsDeletedFails() {
        deadLetter("doomed-source", "doomed", 10);
        String href = start("doomed", "{\"rate\": 1}").header("Location");
        Api.as(project).delete("/v2/queues/doomed").then().statusCode(204);
        Api.as(project).put("/v2/queues/doomed").then().statusCode(201); // a new queue of the same name
        JsonPath ended = awaitEnded(href);
        assertEquals("failed", ended.getString("state"));
        assertEquals("the queue was deleted", ended.getString("reason"));
        assertTrue(ended.getLong("moved") < 10);
        // The new queue may be redriven at once.
        start("doomed", "{}").then().statusCode(201);
    }

    @Test
    void messagesThatExpireBeforeTheyAreReachedAreNotMoved() {
        deadLetter("mortal", "mortal-dead", 10);
        String href = start("mortal-dead", "{\"rate\": 1}").header("Location");
        Eventually.await(
                "one moved",
                Duration.ofSeconds(10),
                () -> Api.as(project).get(href).jsonPath().getLong("moved") > 0);
        Db.run(
                pool,
                "UPDATE messages SET expires_at = now() WHERE queue_id = "
                        + "(SELECT id FROM queues WHERE project = $1 AND name = 'mortal-dead')",
                project);
        JsonPath ended = awaitEnded(href);
        assertEquals("done", ended.getString("state"));
        long moved = ended.getLong("moved");
        assertTrue(moved >= 1 && moved < 10, "moved " + moved);
        assertEquals(0, ended.getLong("skipped"));
        assertEquals(moved, messages("mortal").size());
    }

    @Test
    void aTargetOverItsMessageQuotaTakesNothing() {
        deadLetter("full", "full-dead", 3);
        // The breach below is no real count's: the scheduled usage check would clear it if it ran meanwhile (and once
        // did, failing this test). It runs only when it takes its advisory lock, so this session holds that lock.
        SqlConnection holder = pool.getConnection().await().indefinitely();
        Tuple usageCheck = Tuple.of(OneReplicaAtATime.USAGE_CHECK.key());
        try {
            holder.preparedQuery("SELECT pg_advisory_lock($1)")
                    .execute(usageCheck)
                    .await()
                    .indefinitely();
            Db.run(
                    pool,
                    "INSERT INTO quota_breaches (project, kind, queue_id) "
                            + "SELECT project, 'messages', id FROM queues WHERE project = $1 AND name = 'full'",
                    project);
            JsonPath ended = awaitEnded(start("full-dead", "{\"rate\": 1000}").header("Location"));
            assertEquals(0, ended.getLong("moved"));
            assertEquals(3, ended.getLong("skipped"));
            assertEquals(3, count("full-dead"));
        } finally {
            holder.preparedQuery("SELECT pg_advisory_unlock($1)")
                    .execute(usageCheck)
                    .await()
                    .indefinitely();
            holder.close().await().indefinitely();
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Bad requests: 4xx with the error document naming the field and its bound; nothing stored
    // ---------------------------------------------------------------------------------------------------------------

    @Test
    void everyFieldIsCheckedAndABadRequestStoresNothing() {
        deadLetter("checked", "checked-dead", 2);
        Api.as(project).put("/v2/queues/elsewhere").then().statusCode(201);
        Map<String, String> refused = new TreeMap<>();
        // Every refusal of the rate names the field and its bound, whatever was sent instead of an integer in range.
        String rateAndBound = "\"rate\" field must be an integer from 1 to 1000";
        for (String rate : List.of(
                "0",
                "-5",
                "99999999999999999999999",
                "-99999999999999999999999",
                "1.5",
                "1e308",
                "1e400",
                "\"5\"",
                "\"abc\"",
                "true",
                "[1]",
                "{}")) {
            refused.put("{\"rate\": " + rate + "}", rateAndBound);
        }
        refused.put("{\"rate\": 1001}", "pigeon.redrive.max-rate");
        refused.put("{\"target\": 7}", "\"target\"");
        refused.put("{\"target\": \"\"}", "\"target\"");
        refused.put("{\"target\": \"no spaces\"}", "\"target\"");
        refused.put("{\"target\": \"" + "x".repeat(65) + "\"}", "64");
        refused.put("{\"target\": \"checked-dead\"}", "itself");
        refused.put("{\"target\": \"missing\"}", "does not exist");
        refused.put("{\"tagret\": \"elsewhere\"}", "tagret");
        refused.put("{\"rate\": 10, \"extra\": {}}", "extra");
        refused.put("[]", "JSON object");
        refused.put("\"text\"", "JSON object");
        refused.put("{\"rate\": ", "parsed");
        refused.forEach((body, named) -> start("checked-dead", body)
                .then()
                .statusCode(400)
                .contentType(ContentType.JSON)
                .body("title", notNullValue())
                .body("description", containsString(named)));
        Api.as(project)
                .contentType("text/plain")
                .body("{}")
                .post("/v2/queues/checked-dead/redrive")
                .then()
                .statusCode(400)
                .contentType(ContentType.JSON);
        Api.as(project)
                .get("/v2/queues/checked-dead/redrive")
                .then()
                .statusCode(200)
                .body("tasks", empty());
        assertEquals(2, count("checked-dead"));
        // null is the default, as a field left out.
        start("checked-dead", "{\"rate\": null, \"target\": null}")
                .then()
                .statusCode(201)
                .body("rate", equalTo(100))
                .body("target", nullValue());
    }

    @Test
    void aMissingQueueOddNamesAndOtherVersionsAnswerAsNothingIsThere() {
        start("never-made", "{}")
                .then()
                .statusCode(404)
                .contentType(ContentType.JSON)
                .body("description", containsString("never-made"));
        Api.as(project)
                .get("/v2/queues/never-made/redrive")
                .then()
                .statusCode(200)
                .body("tasks", empty());
        start("bad name", "{}").then().statusCode(400).contentType(ContentType.JSON);
        start("x".repeat(65), "{}").then().statusCode(400).contentType(ContentType.JSON);
        start("%00", "{}").then().statusCode(400).contentType(ContentType.JSON);
        Api.as(project).put("/v2/queues/odd").then().statusCode(201);
        for (String id : List.of("not-a-uuid", "00000000-0000-0000-0000-000000000000", "%27%20OR%201=1", "1")) {
            Api.as(project)
                    .get("/v2/queues/odd/redrive/" + id)
                    .then()
                    .statusCode(404)
                    .contentType(ContentType.JSON);
            Api.as(project).delete("/v2/queues/odd/redrive/" + id).then().statusCode(404);
        }
        // Zaqar has no such path: neither has v1.1, v1, or a topic; nor other methods.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v1.1/queues/odd/redrive")
                .then()
                .statusCode(404);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v1/queues/odd/redrive")
                .then()
                .statusCode(404);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/topics/odd/redrive")
                .then()
                .statusCode(404);
        Api.as(project).put("/v2/queues/odd/redrive").then().statusCode(405);
        // Without a Client-ID or project, as every v2 call.
        Api.withoutClientId(project).get("/v2/queues/odd/redrive").then().statusCode(400);
    }

    @Test
    void anotherProjectSeesNoneOfItAndCannotTouchIt() {
        deadLetter("mine", "mine-dead", 3);
        Response started = start("mine-dead", "{\"rate\": 1}");
        started.then().statusCode(201);
        String href = started.header("Location");
        String other = Api.newProject();
        // Another project's queue of the same name does not exist for it: as for a missing queue.
        Api.as(other)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/mine-dead/redrive")
                .then()
                .statusCode(404);
        Api.as(other).get("/v2/queues/mine-dead/redrive").then().statusCode(200).body("tasks", empty());
        Api.as(other).get(href).then().statusCode(404);
        Api.as(other).delete(href).then().statusCode(404);
        // Its own queue of the same name is its own: the task of the first does not block it, nor is it shown.
        Api.as(other).put("/v2/queues/mine-dead").then().statusCode(201);
        Api.as(other)
                .contentType(ContentType.JSON)
                .body("{\"target\": \"mine\"}")
                .post("/v2/queues/mine-dead/redrive")
                .then()
                .statusCode(400)
                .body("description", containsString("does not exist"));
        Api.as(other)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/mine-dead/redrive")
                .then()
                .statusCode(201);
        Api.as(project).get(href).then().statusCode(200).body("state", equalTo("running"));
        Api.as(project).delete(href).then().statusCode(204);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Real parallel clients
    // ---------------------------------------------------------------------------------------------------------------

    @Test
    void ofManyParallelStartsOnOneQueueExactlyOneRuns() throws Exception {
        deadLetter("raced", "raced-dead", 40);
        int clients = 16;
        ExecutorService threads = Executors.newFixedThreadPool(clients);
        try {
            List<Future<Integer>> answers = new ArrayList<>();
            CompletableFuture<Void> go = new CompletableFuture<>();
            for (int c = 0; c < clients; c++) {
                answers.add(threads.submit(() -> {
                    go.get();
                    return start("raced-dead", "{\"rate\": 20}").statusCode();
                }));
            }
            go.complete(null);
            List<Integer> statuses = new ArrayList<>();
            for (Future<Integer> answer : answers) {
                statuses.add(answer.get(60, TimeUnit.SECONDS));
            }
            assertEquals(1, statuses.stream().filter(status -> status == 201).count(), statuses.toString());
            assertEquals(
                    clients - 1,
                    statuses.stream().filter(status -> status == 409).count(),
                    statuses.toString());
        } finally {
            threads.shutdownNow();
        }
        JsonPath ended = awaitEnded(
                Api.as(project).get("/v2/queues/raced-dead/redrive").jsonPath().getString("tasks[0].href"));
        assertEquals(40, ended.getLong("moved"));
        assertEquals(40, count("raced"));
        assertEquals(0, count("raced-dead"));
    }
}
