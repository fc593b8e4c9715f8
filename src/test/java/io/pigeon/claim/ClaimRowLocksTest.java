package io.pigeon.claim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What each ordering promises when another statement holds a free message's row (issue 43 item 4, decision 0020):
 * the sweeper, vacuum's pruning or another claim lock rows for an instant, and Zaqar's claims skip locked rows. A
 * "fifo" claim must not: it waits for the row, then takes the group's head. A "none" (and "fair") claim passes over
 * the held row and takes a later message, as Zaqar does; docs/api/v2.md says so, and this test keeps it true.
 */
@QuarkusTest
class ClaimRowLocksTest {

    @Inject
    Pool pool;

    private final String project = Api.newProject();

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @Test
    void aFifoClaimWaitsForAHeldHeadInsteadOfPassingOverIt() throws Exception {
        List<Long> rows = queueOfOneGroup("held-fifo", "fifo");

        List<String> claimed = claimWhileHeld("held-fifo", rows.subList(0, 1), true);

        assertEquals(List.of("1", "2", "3"), claimed, "the claim waited for message 1 and took the group in order");
    }

    @Test
    void aNoneClaimPassesOverAHeldRowAndTakesALaterMessage() throws Exception {
        List<Long> rows = queueOfOneGroup("held-none", null);

        List<String> claimed = claimWhileHeld("held-none", rows.subList(0, 1), false);

        assertEquals(List.of("2", "3"), claimed, "the claim skipped the locked row, as Zaqar's claims do");
    }

    @Test
    void aFairClaimPassesOverAHeldRowAsNoneDoes() throws Exception {
        List<Long> rows = queueOfOneGroup("held-fair", "fair");

        List<String> claimed = claimWhileHeld("held-fair", rows.subList(0, 1), false);

        assertEquals(List.of("2", "3"), claimed.stream().sorted().toList(), "the claim skipped the locked row");
    }

    /**
     * Concurrent fair claims pick the same turns (each group's oldest message) and lock them: a claim finding every one
     * of its turns held by another must still take free messages, as a claim of none would, not answer 204.
     */
    @Test
    void aFairClaimWhoseTurnsAreHeldTakesOtherFreeMessages() throws Exception {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_ordering\": \"fair\"}")
                .put("/v2/queues/held-turns")
                .then()
                .statusCode(201);
        for (int round = 0; round < 2; round++) {
            StringBuilder batch = new StringBuilder();
            for (int g = 0; g < 10; g++) {
                batch.append(batch.isEmpty() ? "" : ", ")
                        .append("{\"ttl\": 3600, \"group\": \"g")
                        .append(g)
                        .append("\", \"body\": \"g")
                        .append(g)
                        .append('-')
                        .append(round)
                        .append("\"}");
            }
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"messages\": [" + batch + "]}")
                    .post("/v2/queues/held-turns/messages")
                    .then()
                    .statusCode(201);
        }
        List<String> hrefs = Api.as(project)
                .get("/v2/queues/held-turns/messages?echo=true&limit=20")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("messages.href", String.class);
        List<Long> firstOfEachGroup =
                hrefs.stream().map(Messages::rowId).sorted().limit(10).toList();

        List<String> claimed = claimWhileHeld("held-turns", firstOfEachGroup, false);

        assertEquals(
                List.of("g0-1", "g1-1", "g2-1", "g3-1", "g4-1", "g5-1", "g6-1", "g7-1", "g8-1", "g9-1"),
                claimed.stream().sorted().toList(),
                "the claim took the free second messages instead of answering nothing");
    }

    /** A queue of the ordering with three messages of group "g", posted one by one; answers their row ids in order. */
    private List<Long> queueOfOneGroup(String queue, String ordering) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(ordering == null ? "{}" : "{\"_ordering\": \"" + ordering + "\"}")
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
        for (String body : List.of("1", "2", "3")) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"messages\": [{\"ttl\": 3600, \"group\": \"g\", \"body\": \"" + body + "\"}]}")
                    .post("/v2/queues/" + queue + "/messages")
                    .then()
                    .statusCode(201);
        }
        List<String> hrefs = Api.as(project)
                .get("/v2/queues/" + queue + "/messages?echo=true&limit=10")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("messages.href", String.class);
        return hrefs.stream().map(Messages::rowId).sorted().toList();
    }

    /**
     * Claims (limit 10) while another transaction holds the rows' locks, as the sweeper does for an instant. When the
     * claim is expected to wait, the lock is let go only once PostgreSQL shows the claim waiting for it; otherwise the
     * claim must answer while the lock is still held.
     */
    private List<String> claimWhileHeld(String queue, List<Long> rows, boolean expectWait) throws Exception {
        SqlConnection holder = pool.getConnection().await().indefinitely();
        try {
            Transaction transaction = holder.begin().await().indefinitely();
            int holderPid = holder.query("SELECT pg_backend_pid()")
                    .execute()
                    .await()
                    .indefinitely()
                    .iterator()
                    .next()
                    .getInteger(0);
            holder.preparedQuery("SELECT 1 FROM messages WHERE id = ANY($1) FOR UPDATE")
                    .execute(Tuple.of(rows.toArray(new Long[0])))
                    .await()
                    .indefinitely();
            CompletableFuture<HttpResponse<String>> answer =
                    http.sendAsync(claim(queue), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> response;
            if (expectWait) {
                Eventually.await(
                        "the claim waits for the held row",
                        Duration.ofSeconds(20),
                        () -> Db.count(
                                        pool,
                                        "SELECT count(*) FROM pg_locks w JOIN pg_locks h ON h.locktype = w.locktype "
                                                + "AND h.transactionid IS NOT DISTINCT FROM w.transactionid "
                                                + "AND h.relation IS NOT DISTINCT FROM w.relation "
                                                + "AND h.page IS NOT DISTINCT FROM w.page "
                                                + "AND h.tuple IS NOT DISTINCT FROM w.tuple "
                                                + "WHERE NOT w.granted AND h.granted AND h.pid = "
                                                + holderPid)
                                >= 1);
                transaction.rollback().await().indefinitely();
                response = answer.get(30, TimeUnit.SECONDS);
            } else {
                response = answer.get(30, TimeUnit.SECONDS);
                transaction.rollback().await().indefinitely();
            }
            assertEquals(201, response.statusCode(), response.body());
            return JsonPath.from(response.body()).getList("messages.body", String.class);
        } finally {
            holder.close().await().indefinitely();
        }
    }

    private HttpRequest claim(String queue) {
        return HttpRequest.newBuilder(URI.create(
                        RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/" + queue + "/claims?limit=10"))
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"ttl\": 300, \"grace\": 60}"))
                .build();
    }
}
