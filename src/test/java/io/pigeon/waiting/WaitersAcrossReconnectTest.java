package io.pigeon.waiting;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.storage.DatabaseNotices;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * LISTEN/NOTIFY is not durable: a post committed while the replica's notices connection is down tells nobody. The
 * waiters catch up when it is back: every waiter of the database looks at its queue again. Here the connection is
 * killed from PostgreSQL ({@code pg_terminate_backend}) while claims wait, and messages are posted while it is down;
 * every waiter that had a message free gets it within its wait (before, a waiter whose notice was lost waited for the
 * next post or the end of its wait).
 */
@QuarkusTest
class WaitersAcrossReconnectTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int WAITERS = 6;

    @Inject
    QueueWaits waits;

    @Inject
    Pool pool;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String project = Api.newProject();

    private CompletableFuture<HttpResponse<String>> claim(String queue, int wait) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(
                        RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/" + queue + "/claims?limit=1"))
                .timeout(Duration.ofSeconds(wait + 60))
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"ttl\": 300, \"grace\": 60, \"wait\": " + wait + "}"))
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    private void post(String queue, String body) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": \"" + body + "\"}]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    /** The replica's notices connections to the tests' database, as PostgreSQL lists them. */
    private long noticesConnections() {
        return Db.count(
                pool,
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()",
                DatabaseNotices.APPLICATION_NAME);
    }

    @Test
    void everyWaiterGetsAMessagePostedWhileItsNoticesConnectionWasDown() throws Exception {
        Api.as(project).put("/v2/queues/across").then().statusCode(201);
        int before = waits.waiting();
        List<CompletableFuture<HttpResponse<String>>> claims = new ArrayList<>();
        for (int i = 0; i < WAITERS; i++) {
            claims.add(claim("across", 20));
        }
        Eventually.await("the waiters held", Duration.ofSeconds(15), () -> waits.waiting() >= before + WAITERS);
        Eventually.await("the notices connection", Duration.ofSeconds(10), () -> noticesConnections() == 1);
        Eventually.pause(Duration.ofMillis(1000)); // the mark made, the waiters' tries after it done

        long killed = Db.count(
                pool,
                """
                WITH notices AS MATERIALIZED (
                    SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database())
                SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM notices""",
                DatabaseNotices.APPLICATION_NAME);
        assertEquals(1, killed, "the notices connection was killed");

        // Posts go on at once, while the connection is down (it is made again after a pause of a second): their notices
        // go to nobody. Any that comes after it is back wakes the waiters too: the assertions cannot fail by chance.
        Set<String> posted = new HashSet<>();
        for (int i = 0; i < WAITERS; i++) {
            String body = "message-" + i;
            post("across", body);
            posted.add(body);
        }

        Set<String> got = new HashSet<>();
        for (CompletableFuture<HttpResponse<String>> claim : claims) {
            HttpResponse<String> answer = claim.get(60, TimeUnit.SECONDS);
            assertEquals(201, answer.statusCode(), "a waiter answered at the end of its wait: " + answer.body());
            JsonNode messages = JSON.readTree(answer.body()).path("messages");
            assertEquals(1, messages.size(), answer.body());
            got.add(messages.get(0).path("body").asText());
        }
        assertEquals(posted, got, "each message went to one waiter");
        Eventually.await("the notices connection back", Duration.ofSeconds(10), () -> noticesConnections() == 1);
        assertTrue(waits.waiting() <= before, "no waiter left behind");
    }
}
