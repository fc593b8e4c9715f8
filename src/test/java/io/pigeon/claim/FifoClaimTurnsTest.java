package io.pigeon.claim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Many concurrent claims on one fifo queue whose claim statement is slow must not take the replica's database
 * connections from everyone else: the queue's fifo claims are serialized by an advisory lock in the database, and
 * each claim that waited there held a pooled connection, so a tenant's burst of claims on one queue stalled every
 * other project's posts on the replica. Here a test transaction holds the queue's fifo lock (as a slow claim would)
 * while more claims than the pool has connections arrive: only one of them may wait in the database, and another
 * project's post is answered meanwhile.
 */
@QuarkusTest
class FifoClaimTurnsTest {

    /** More than the reactive pool's connections (20). */
    private static final int CLAIMS = 24;

    @Inject
    Pool pool;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    @Test
    void claimsWaitingForABusyFifoQueueLeaveTheConnectionsToOthers() throws Exception {
        String tenant = Api.newProject();
        String other = Api.newProject();
        Api.as(tenant)
                .contentType(ContentType.JSON)
                .body("{\"_ordering\": \"fifo\"}")
                .put("/v2/queues/busy")
                .then()
                .statusCode(201);
        Api.as(tenant)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 3600, \"body\": 1, \"group\": \"g\"}]}")
                .post("/v2/queues/busy/messages")
                .then()
                .statusCode(201);
        // The first claim teaches this replica that the queue is fifo and blocks its only group.
        Api.as(tenant)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 600}")
                .post("/v2/queues/busy/claims")
                .then()
                .statusCode(201);
        long queueId = Db.count(pool, "SELECT id FROM queues WHERE project = $1 AND name = 'busy'", tenant);

        SqlConnection holder = pool.getConnection().await().indefinitely();
        List<CompletableFuture<HttpResponse<String>>> claims = new ArrayList<>();
        try {
            holder.begin().await().indefinitely();
            holder.preparedQuery("SELECT pg_advisory_xact_lock(hashtextextended('pigeon.fifo:' || $1::bigint, 0))")
                    .execute(Tuple.of(queueId))
                    .await()
                    .indefinitely();
            for (int i = 0; i < CLAIMS; i++) {
                claims.add(http.sendAsync(
                        request(tenant, "/v2/queues/busy/claims", "{\"ttl\": 600}"),
                        HttpResponse.BodyHandlers.ofString()));
            }
            Eventually.await(
                    "a claim waits for the queue's fifo lock",
                    Duration.ofSeconds(30),
                    () -> waitingForTheLock(holder) >= 1);

            // However long the others take to arrive, none of them joins the one waiting in the database.
            long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            while (System.nanoTime() < end) {
                assertEquals(1, waitingForTheLock(holder), "one claim of the queue waits in the database, not all");
                Thread.sleep(20);
            }
            HttpResponse<String> post = http.sendAsync(
                            request(other, "/v2/queues/elsewhere/messages", "{\"messages\": [{\"body\": 2}]}"),
                            HttpResponse.BodyHandlers.ofString())
                    .get(60, TimeUnit.SECONDS);

            assertEquals(201, post.statusCode(), post.body());
            assertEquals(1, waitingForTheLock(holder), "one claim of the queue waits in the database, not all");
        } finally {
            holder.close().await().indefinitely();
        }
        for (CompletableFuture<HttpResponse<String>> claim : claims) {
            HttpResponse<String> answer = claim.get(60, TimeUnit.SECONDS);
            assertEquals(204, answer.statusCode(), "the queue's only group is blocked: " + answer.body());
        }
    }

    private static long waitingForTheLock(SqlConnection holder) {
        return holder.query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
                .execute()
                .await()
                .indefinitely()
                .iterator()
                .next()
                .getLong(0);
    }

    /** A POST of {@code body} to {@code path} for {@code project}, for concurrent clients of this package's tests. */
    static HttpRequest request(String project, String path, String body) {
        return HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":" + RestAssured.port + path))
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(90))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }
}
