package io.pigeon.claim;

import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
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
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Renewing and releasing a claim lock its row, then its messages; another transaction (in production the sweeper) may
 * hold one of those messages and wait for the claim's row. PostgreSQL then aborts one of the two to break the
 * deadlock: when it is the renewal or release, it changed nothing and is run again, so the client never sees it.
 */
@QuarkusTest
class ClaimDeadlockTest {

    @Inject
    Pool pool;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @Test
    void aReleaseAbortedByADeadlockIsRunAgainAndAnswered204() throws Exception {
        String project = Api.newProject();
        Held held = claimOne(project, "released");

        HttpResponse<String> answer = whileDeadlocked(held, "DELETE", null);

        assertEquals(204, answer.statusCode(), answer.body());
        Api.as(project).get("/v2/queues/released/claims/" + held.claim()).then().statusCode(404);
        assertEquals(
                0,
                Db.count(pool, "SELECT count(*) FROM messages WHERE id = $1 AND claim_expires_at > now()", held.row()),
                "the message is free again");
    }

    @Test
    void aRenewalAbortedByADeadlockIsRunAgainAndAnswered204() throws Exception {
        String project = Api.newProject();
        Held held = claimOne(project, "renewed");

        HttpResponse<String> answer = whileDeadlocked(held, "PATCH", "{\"ttl\": 600}");

        assertEquals(204, answer.statusCode(), answer.body());
        Api.as(project)
                .get("/v2/queues/renewed/claims/" + held.claim())
                .then()
                .statusCode(200)
                .body("ttl", equalTo(600));
    }

    private record Held(String project, String queue, String claim, long row) {}

    private static Held claimOne(String project, String queue) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 3600, \"body\": \"held\"}]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
        Response claimed = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/" + queue + "/claims");
        assertEquals(201, claimed.statusCode(), claimed.asString());
        String href = claimed.jsonPath().getString("messages[0].href");
        return new Held(project, queue, Messages.claimId(href), Messages.rowId(href));
    }

    /**
     * Sends the request to the claim while a transaction holds the claim's message: once the request waits for that
     * message (holding the claim's row), the transaction asks for the claim's row, which closes the cycle. This
     * transaction's own deadlock check is made to come last, so that PostgreSQL aborts the request's statement.
     */
    private HttpResponse<String> whileDeadlocked(Held held, String method, String body) throws Exception {
        SqlConnection holder = pool.getConnection().await().indefinitely();
        try {
            try {
                // Allowed to a superuser only (the tests' own servers); elsewhere the request, which waits first,
                // is still the first to check.
                holder.query("SET deadlock_timeout = '20s'").execute().await().indefinitely();
            } catch (RuntimeException notAllowed) {
                // keep the server's setting
            }
            Transaction transaction = holder.begin().await().indefinitely();
            holder.preparedQuery("SELECT 1 FROM messages WHERE id = $1 FOR UPDATE")
                    .execute(Tuple.of(held.row()))
                    .await()
                    .indefinitely();
            CompletableFuture<HttpResponse<String>> answer =
                    http.sendAsync(request(held, method, body), HttpResponse.BodyHandlers.ofString());
            Eventually.await(
                    "the request waits for the held message",
                    Duration.ofSeconds(20),
                    () -> Db.count(
                                    pool,
                                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                            + "AND query LIKE '%UPDATE claims c%'")
                            == 1);
            // Waits for the request's transaction, which waits for this one: PostgreSQL aborts the request's
            // statement, and this update goes through.
            holder.preparedQuery("UPDATE claims SET grace = grace WHERE id = $1")
                    .execute(Tuple.of(UUID.fromString(held.claim())))
                    .await()
                    .atMost(Duration.ofSeconds(30));
            transaction.rollback().await().indefinitely();
            return answer.get(30, TimeUnit.SECONDS);
        } finally {
            holder.close().await().indefinitely();
        }
    }

    private static HttpRequest request(Held held, String method, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":" + RestAssured.port
                        + "/v2/queues/" + held.queue() + "/claims/" + held.claim()))
                .header("X-Project-Id", held.project())
                .header("Client-ID", Api.CLIENT_ID)
                .timeout(Duration.ofSeconds(30));
        if (body == null) {
            return request.method(method, HttpRequest.BodyPublishers.noBody()).build();
        }
        return request.header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(body))
                .build();
    }
}
