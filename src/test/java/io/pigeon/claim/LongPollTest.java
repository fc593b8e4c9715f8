package io.pigeon.claim;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.waiting.QueueReady;
import io.pigeon.waiting.QueueWaits;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.pgclient.PgConnection;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
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
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Long-polling claims and pops with real parallel HTTP clients on the real PostgreSQL: what wakes a waiting claim
 * (a post, a delay ending, a release), when it gives up (204 at its wait's end), and what it refuses.
 */
@QuarkusTest
class LongPollTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Inject
    QueueWaits waits;

    @Inject
    Pool pool;

    private static URI uri(String path) {
        return URI.create(RestAssured.baseURI + ":" + RestAssured.port + path);
    }

    private static void createQueue(String project, String queue, String metadata) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(metadata)
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
    }

    private static void post(String project, String queue, String messages) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [" + messages + "]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    /** A claim sent now, in parallel with the test; its answer and when it came. */
    private record Timed(HttpResponse<String> response, long millis) {}

    private CompletableFuture<Timed> claim(String project, String path, String body, String prefer) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
                .timeout(Duration.ofSeconds(60))
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (prefer != null) {
            request.header("Prefer", prefer);
        }
        long start = System.nanoTime();
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString())
                .thenApply(response -> new Timed(response, (System.nanoTime() - start) / 1_000_000));
    }

    private void awaitWaiting(int count) {
        Eventually.await("waiters held", Duration.ofSeconds(10), () -> waits.waiting() >= count);
    }

    @Test
    void aWaitingClaimGetsAMessagePostedLater() throws Exception {
        String project = Api.newProject();
        createQueue(project, "later", "{}");
        CompletableFuture<Timed> waiting =
                claim(project, "/v2/queues/later/claims?limit=5", "{\"ttl\": 60, \"grace\": 60, \"wait\": 10}", null);
        Thread.sleep(3000);
        long posted = System.nanoTime();
        post(project, "later", "{\"ttl\": 300, \"body\": \"late\"}");
        Timed answer = waiting.get();
        long afterPost = (System.nanoTime() - posted) / 1_000_000;
        assertEquals(201, answer.response().statusCode(), answer.response().body());
        JsonNode messages = JSON.readTree(answer.response().body()).path("messages");
        assertEquals(1, messages.size());
        assertEquals("late", messages.get(0).path("body").asText());
        // Wide margins: the figures are measured (printed), the assertions only tell a wake from the wait's end (10 s,
        // 7 s after the post): a loaded machine must not fail them by chance.
        assertTrue(answer.millis() < 3000 + 5000, "answered " + answer.millis() + " ms after the claim");
        System.out.printf(
                "long poll: claim answered %d ms after it was sent, %d ms after the post began%n",
                answer.millis(), afterPost);
        assertTrue(afterPost < 5000, "answered " + afterPost + " ms after the post began");
    }

    @Test
    void withoutAPostTheClaimAnswers204AtTheEndOfItsWait() throws Exception {
        String project = Api.newProject();
        createQueue(project, "quiet", "{}");
        Timed answer =
                claim(project, "/v2/queues/quiet/claims", "{\"wait\": 2}", null).get();
        assertEquals(204, answer.response().statusCode());
        // Not before its end; the upper bound only tells "at its end" from "never" (a loaded machine answers late).
        assertTrue(
                answer.millis() >= 1500 && answer.millis() <= 12_000,
                "a 2 s wait answered after " + answer.millis() + " ms");
        assertTrue(answer.response().headers().firstValue("Preference-Applied").isEmpty());
    }

    @Test
    void aDelayedMessageWakesTheClaimAtItsDueTime() throws Exception {
        String project = Api.newProject();
        createQueue(project, "delayed", "{}");
        CompletableFuture<Timed> waiting = claim(project, "/v2/queues/delayed/claims", "{\"wait\": 15}", null);
        awaitWaiting(1);
        long posted = System.nanoTime();
        post(project, "delayed", "{\"ttl\": 300, \"delay\": 3, \"body\": \"due\"}");
        Timed answer = waiting.get();
        long afterPost = (System.nanoTime() - posted) / 1_000_000;
        assertEquals(201, answer.response().statusCode());
        // Not before the delay; well before the wait's end (15 s), however loaded the machine.
        assertTrue(afterPost >= 2500 && afterPost <= 10_000, "a 3 s delay woke the claim after " + afterPost + " ms");
    }

    @Test
    void aReleasedClaimWakesAnotherWaiter() throws Exception {
        String project = Api.newProject();
        createQueue(project, "released", "{}");
        post(project, "released", "{\"ttl\": 300, \"body\": 1}");
        String location = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/released/claims")
                .then()
                .statusCode(201)
                .extract()
                .header("Location");
        CompletableFuture<Timed> waiting = claim(project, "/v2/queues/released/claims", "{}", "wait=10");
        awaitWaiting(1);
        Thread.sleep(500);
        long released = System.nanoTime();
        Api.as(project).delete(location).then().statusCode(204);
        Timed answer = waiting.get();
        long afterRelease = (System.nanoTime() - released) / 1_000_000;
        assertEquals(201, answer.response().statusCode());
        assertEquals(
                "wait=10",
                answer.response().headers().firstValue("Preference-Applied").orElse(null));
        // A wake, not the wait's end (about 9 s after the release): a generous bound, not a speed test.
        assertTrue(afterRelease < 5000, "the release woke the claim after " + afterRelease + " ms");
    }

    /** Single messages released from a claim without a delay wake a waiter too; the claim keeps the others. */
    @Test
    void messagesReleasedFromAClaimWakeAnotherWaiter() throws Exception {
        String project = Api.newProject();
        createQueue(project, "given-back", "{}");
        post(project, "given-back", "{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}");
        var claimed = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/given-back/claims")
                .then()
                .statusCode(201)
                .extract();
        String location = claimed.header("Location");
        String first = claimed.jsonPath().getString("messages[0].id");
        CompletableFuture<Timed> waiting = claim(project, "/v2/queues/given-back/claims", "{\"wait\": 10}", null);
        awaitWaiting(1);
        Thread.sleep(500);
        long released = System.nanoTime();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ids\": [\"" + first + "\"]}")
                .post(location + "/release")
                .then()
                .statusCode(204);
        Timed answer = waiting.get();
        long afterRelease = (System.nanoTime() - released) / 1_000_000;
        assertEquals(201, answer.response().statusCode(), answer.response().body());
        JsonNode messages = JSON.readTree(answer.response().body()).path("messages");
        assertEquals(1, messages.size());
        assertEquals(first, messages.get(0).path("id").asText());
        // A wake, not the wait's end (about 9 s after the release): a generous bound, not a speed test.
        assertTrue(afterRelease < 5000, "the release woke the claim after " + afterRelease + " ms");
    }

    /**
     * A message released from a claim with a delay wakes a waiting claim at its due time, although the waiter had
     * armed its timer for the claim's end (60 s) and nothing comes free at the release itself.
     */
    @Test
    void aDelayedReleaseWakesAWaiterAtItsDueTime() throws Exception {
        String project = Api.newProject();
        createQueue(project, "backed-off", "{}");
        post(project, "backed-off", "{\"ttl\": 300, \"body\": \"retry me\"}");
        var claimed = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60}")
                .post("/v2/queues/backed-off/claims")
                .then()
                .statusCode(201)
                .extract();
        String location = claimed.header("Location");
        String id = claimed.jsonPath().getString("messages[0].id");
        int before = waits.waiting();
        CompletableFuture<Timed> waiting = claim(project, "/v2/queues/backed-off/claims", "{\"wait\": 12}", null);
        awaitWaiting(before + 1);
        Thread.sleep(800); // the waiter has tried, found nothing and armed its timer for the claim's end
        long released = System.nanoTime();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ids\": [\"" + id + "\"], \"delay\": 2}")
                .post(location + "/release")
                .then()
                .statusCode(204);
        Timed answer = waiting.get();
        long afterRelease = (System.nanoTime() - released) / 1_000_000;
        assertEquals(201, answer.response().statusCode(), answer.response().body());
        assertEquals(
                id,
                JSON.readTree(answer.response().body())
                        .path("messages")
                        .get(0)
                        .path("id")
                        .asText());
        // Not before the delay; well before the wait's end (about 11 s after the release), however loaded the machine.
        assertTrue(
                afterRelease >= 1500 && afterRelease <= 8000,
                "a release delayed 2 s woke the claim after " + afterRelease + " ms");
    }

    /**
     * A renewal that ends a claim sooner tells the queue's waiters (they re-read when a message next comes free: their
     * timer was armed for the claim's old end); one that ends it later does not. The shortest claim (60 s) outlasts
     * the longest wait (20 s), so the notice itself is what is observed, on a LISTEN connection of the test's own.
     */
    @Test
    void aRenewalThatShortensAClaimTellsTheWaiters() throws Exception {
        String project = Api.newProject();
        createQueue(project, "renewed", "{}");
        post(project, "renewed", "{\"ttl\": 3600, \"body\": 1}");
        String location = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/renewed/claims")
                .then()
                .statusCode(201)
                .extract()
                .header("Location");
        int before = waits.waiting();
        CompletableFuture<Timed> waiting = claim(project, "/v2/queues/renewed/claims", "{\"wait\": 5}", null);
        awaitWaiting(before + 1);
        List<String> notices = Collections.synchronizedList(new ArrayList<>());
        SqlConnection connection = pool.getConnection().await().indefinitely();
        try {
            PgConnection.cast(connection).notificationHandler(notice -> {
                if (notice.getPayload().contains("\"" + project + "\"")) {
                    notices.add(notice.getPayload());
                }
            });
            connection.query("LISTEN " + QueueReady.CHANNEL).execute().await().indefinitely();
            // Longer: nobody is told. Then shorter: one notice, after the first statement's (if it sent any).
            renew(project, location, 600);
            renew(project, location, 60);
            Eventually.await("the shortening renewal's notice", Duration.ofSeconds(10), () -> !notices.isEmpty());
            Thread.sleep(200);
            assertEquals(1, notices.size(), "notices: " + notices);
        } finally {
            connection.close().await().indefinitely();
        }
        assertEquals(204, waiting.get().response().statusCode());
    }

    private static void renew(String project, String location, int ttl) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": " + ttl + "}")
                .patch(location)
                .then()
                .statusCode(204);
    }

    /** No wait happens on a queue that does not exist: the answer is at once, without Preference-Applied. */
    @Test
    void aMissingQueueIsNotWaitedForAndThePreferenceIsNotApplied() throws Exception {
        String project = Api.newProject();
        // A wait of 15 s, so that "at once" has a bound no loaded machine reaches by chance.
        Timed v2 = claim(project, "/v2/queues/absent/claims", "{}", "wait=15").get();
        assertEquals(204, v2.response().statusCode());
        assertTrue(v2.response().headers().firstValue("Preference-Applied").isEmpty(), "v2 claim");
        assertTrue(v2.millis() < 8000, "answered after " + v2.millis() + " ms");
        Timed v1 = claim(project, "/v1/queues/absent/claims", "{\"ttl\": 60, \"grace\": 60}", "wait=3")
                .get();
        assertEquals(204, v1.response().statusCode());
        assertTrue(v1.response().headers().firstValue("Preference-Applied").isEmpty(), "v1 claim");
        HttpResponse<String> pop = http.send(
                HttpRequest.newBuilder(uri("/v2/queues/absent/messages?pop=1"))
                        .timeout(Duration.ofSeconds(60))
                        .header("X-Project-Id", project)
                        .header("Client-ID", Api.CLIENT_ID)
                        .header("Prefer", "wait=3")
                        .DELETE()
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, pop.statusCode());
        assertEquals(0, JSON.readTree(pop.body()).path("messages").size());
        assertTrue(pop.headers().firstValue("Preference-Applied").isEmpty(), "pop");
        // On a queue that exists, the same preference is applied (and waited for).
        createQueue(project, "present", "{}");
        Timed present =
                claim(project, "/v2/queues/present/claims", "{}", "wait=1").get();
        assertEquals(204, present.response().statusCode());
        assertEquals(
                "wait=1",
                present.response().headers().firstValue("Preference-Applied").orElse(null));
    }

    /** A preference too long for any number type is capped at pigeon.claim-wait.max (20), not ignored. */
    @Test
    void anEnormousPreferredWaitIsCapped() throws Exception {
        String project = Api.newProject();
        createQueue(project, "enormous", "{}");
        int before = waits.waiting();
        CompletableFuture<Timed> waiting =
                claim(project, "/v2/queues/enormous/claims", "{}", "wait=99999999999999999999");
        awaitWaiting(before + 1);
        post(project, "enormous", "{\"ttl\": 300, \"body\": \"soon\"}");
        Timed answer = waiting.get();
        assertEquals(201, answer.response().statusCode(), answer.response().body());
        assertEquals(
                "wait=20",
                answer.response().headers().firstValue("Preference-Applied").orElse(null));
    }

    @Test
    void theQueueDefaultMakesClaimsWaitAndIsShownOnlyWhenSet() throws Exception {
        String project = Api.newProject();
        createQueue(project, "patient", "{\"_claim_wait_seconds\": 5}");
        createQueue(project, "plain", "{}");
        Api.as(project).get("/v2/queues/patient").then().body("_claim_wait_seconds", equalTo(5));
        JsonNode plain = JSON.readTree(
                Api.as(project).get("/v2/queues/plain").then().extract().asString());
        assertTrue(!plain.has("_claim_wait_seconds"), "an unset wait is not shown: " + plain);
        Timed patient = claim(project, "/v2/queues/patient/claims", "{}", null).get();
        assertEquals(204, patient.response().statusCode());
        assertTrue(patient.millis() >= 4500, "the queue's 5 s wait answered after " + patient.millis() + " ms");
        // The request's own wait wins: 0 is Zaqar's claim.
        Timed now = claim(project, "/v2/queues/patient/claims", "{\"wait\": 0}", null)
                .get();
        assertEquals(204, now.response().statusCode());
        // At once, not after the queue's 5 s: a bound a loaded machine does not reach by chance.
        assertTrue(now.millis() < 3500, "a wait of 0 answered after " + now.millis() + " ms");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_claim_wait_seconds\": 21}")
                .put("/v2/queues/refused")
                .then()
                .statusCode(400)
                .body("description", containsString("_claim_wait_seconds must be an integer from 0 to 20"));
    }

    @Test
    void badWaitsAreRefusedNamingTheFieldAndItsBound() {
        String project = Api.newProject();
        createQueue(project, "bounds", "{}");
        for (String wait : List.of("-1", "21", "2147483648", "1e400", "2.5", "\"5\"", "null", "[]")) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"wait\": " + wait + "}")
                    .post("/v2/queues/bounds/claims")
                    .then()
                    .statusCode(400)
                    .contentType(ContentType.JSON)
                    .body("description", containsString("\"wait\" field must be an integer from 0 to 20"));
        }
        // A preference that does not read is ignored (RFC 7240); a longer one is capped.
        Api.as(project)
                .header("Prefer", "wait=soon")
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/bounds/claims")
                .then()
                .statusCode(204)
                .header("Preference-Applied", nullValue());
    }

    @Test
    void aPopWaitsWithPreferAndSaysSo() throws Exception {
        String project = Api.newProject();
        createQueue(project, "popped", "{}");
        HttpRequest request = HttpRequest.newBuilder(uri("/v2/queues/popped/messages?pop=2"))
                .timeout(Duration.ofSeconds(60))
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Prefer", "respond-async, wait=100")
                .DELETE()
                .build();
        CompletableFuture<HttpResponse<String>> popping = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        awaitWaiting(1);
        post(project, "popped", "{\"ttl\": 300, \"body\": \"popped\"}");
        HttpResponse<String> answer = popping.get();
        assertEquals(200, answer.statusCode());
        assertEquals(
                "wait=20", answer.headers().firstValue("Preference-Applied").orElse(null));
        assertEquals(
                "popped",
                JSON.readTree(answer.body())
                        .path("messages")
                        .get(0)
                        .path("body")
                        .asText());
        Api.as(project).get("/v2/queues/popped/stats").then().body("messages.total", equalTo(0));
    }

    @Test
    void aClientThatLeftLeavesTheMessageFree() throws Exception {
        String project = Api.newProject();
        createQueue(project, "left", "{}");
        int before = waits.waiting();
        String body = "{\"wait\": 20}";
        try (Socket socket = new Socket("localhost", RestAssured.port)) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v2/queues/left/claims HTTP/1.1\r\nHost: localhost\r\nX-Project-Id: " + project
                            + "\r\nClient-ID: " + Api.CLIENT_ID + "\r\nContent-Type: application/json\r\n"
                            + "Content-Length: " + body.length() + "\r\n\r\n" + body)
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            awaitWaiting(before + 1);
        }
        Eventually.await("the waiter left with its client", Duration.ofSeconds(10), () -> waits.waiting() <= before);
        post(project, "left", "{\"ttl\": 300, \"body\": \"free\"}");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/left/claims")
                .then()
                .statusCode(201)
                .body("messages", hasSize(1));
    }

    @Test
    void v1ClaimsWaitWithPrefer() throws Exception {
        String project = Api.newProject();
        Api.as(project).put("/v1/queues/old").then().statusCode(201);
        HttpRequest request = HttpRequest.newBuilder(uri("/v1/queues/old/claims"))
                .timeout(Duration.ofSeconds(60))
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .header("Prefer", "wait=10")
                .POST(HttpRequest.BodyPublishers.ofString("{\"ttl\": 60, \"grace\": 60, \"wait\": \"ignored\"}"))
                .build();
        CompletableFuture<HttpResponse<String>> waiting = http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        awaitWaiting(1);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[{\"ttl\": 300, \"body\": \"v1\"}]")
                .post("/v1/queues/old/messages")
                .then()
                .statusCode(201);
        HttpResponse<String> answer = waiting.get();
        assertEquals(201, answer.statusCode(), answer.body());
        assertEquals(
                "wait=10", answer.headers().firstValue("Preference-Applied").orElse(null));
    }

    /** Printed, not asserted: how long after a post a waiting claim is answered, over a few dozen trials. */
    @Test
    void wakeLatency() throws Exception {
        String project = Api.newProject();
        createQueue(project, "latency", "{}");
        List<Long> latencies = new ArrayList<>();
        for (int trial = 0; trial < 30; trial++) {
            int before = waits.waiting();
            CompletableFuture<Timed> waiting = claim(project, "/v2/queues/latency/claims", "{\"wait\": 10}", null);
            awaitWaiting(before + 1);
            Thread.sleep(20);
            long posted = System.nanoTime();
            post(project, "latency", "{\"ttl\": 300, \"body\": " + trial + "}");
            Timed answer = waiting.get();
            latencies.add((System.nanoTime() - posted) / 1_000_000);
            assertEquals(201, answer.response().statusCode());
            JsonNode message =
                    JSON.readTree(answer.response().body()).path("messages").get(0);
            Api.as(project).delete(message.path("href").asText()).then().statusCode(204);
        }
        Collections.sort(latencies);
        System.out.printf(
                "long poll wake latency (post sent to claim answered, same replica, %d trials): p50 %d ms, p99 %d ms,"
                        + " max %d ms%n",
                latencies.size(),
                latencies.get(latencies.size() / 2),
                latencies.get((int) Math.ceil(latencies.size() * 0.99) - 1),
                latencies.get(latencies.size() - 1));
    }
}
