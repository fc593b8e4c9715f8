package io.pigeon.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.queue.QueueName;
import io.pigeon.subscription.SocketSubscriptions;
import io.pigeon.subscription.SubscriptionService;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.waiting.QueueWaits;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One LISTEN connection per database per replica, as PostgreSQL sees it: with a claim waiting, a socket subscribed
 * and the dispatcher running, {@code pg_stat_activity} shows the replica's notices connection once for the database
 * and none of the connections each feature used to open for itself.
 */
@QuarkusTest
class OneNoticesConnectionTest {

    private static final Duration WITHIN = Duration.ofSeconds(15);
    /** The connections each feature opened for itself before they shared one. */
    private static final List<String> FORMER = List.of("pigeon-waiters", "pigeon-dispatcher", "pigeon-sockets");

    @Inject
    Pool pool;

    @Inject
    QueueWaits waits;

    @Inject
    SocketSubscriptions sockets;

    private final String project = Api.newProject();

    /** A socket as the transport would hold it. */
    private static final class Inbox implements SocketSubscriptions.SocketInbox {
        final List<SocketSubscriptions.SocketNotification> received = new CopyOnWriteArrayList<>();

        @Override
        public String socketId() {
            return "one-connection-socket";
        }

        @Override
        public void deliver(SocketSubscriptions.SocketNotification notification) {
            received.add(notification);
        }

        @Override
        public boolean receivesFor(String project) {
            return true;
        }
    }

    private void post(String queue, String body) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": \"" + body + "\"}]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    /** This replica's connections named {@code name} per database, as {@code datname: count}, in database order. */
    private List<String> connectionsNamed(String name) {
        List<String> found = new ArrayList<>();
        for (Row row : Db.run(
                pool,
                """
                SELECT datname, count(*) AS connections FROM pg_stat_activity WHERE application_name = $1
                GROUP BY datname ORDER BY datname""",
                name)) {
            found.add(row.getString("datname") + ": " + row.getLong("connections"));
        }
        return found;
    }

    @Test
    void aWaiterASocketAndTheDispatcherShareOneConnectionPerDatabase() throws Exception {
        Api.as(project).put("/v2/queues/waited").then().statusCode(201);
        Api.as(project).put("/v2/queues/pushed").then().statusCode(201);
        String database = Db.run(pool, "SELECT current_database() AS db")
                .iterator()
                .next()
                .getString("db");

        // A socket subscribed: its pushes come through the database's notices.
        Inbox inbox = new Inbox();
        sockets.subscribe(project, QueueName.of("pushed"), new SubscriptionService.Fields(null, null, null), inbox)
                .await()
                .atMost(WITHIN);
        post("pushed", "to-the-socket");
        Eventually.await("the socket's push", WITHIN, () -> inbox.received.size() == 1);

        // A claim waiting: its queue is marked and listened for.
        int before = waits.waiting();
        HttpRequest claim = HttpRequest.newBuilder(
                        URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/waited/claims?limit=1"))
                .timeout(Duration.ofSeconds(60))
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"ttl\": 60, \"grace\": 60, \"wait\": 20}"))
                .build();
        CompletableFuture<HttpResponse<String>> waiting =
                HttpClient.newHttpClient().sendAsync(claim, HttpResponse.BodyHandlers.ofString());
        Eventually.await("the claim waiting", WITHIN, () -> waits.waiting() > before);
        Eventually.pause(Duration.ofMillis(1000)); // its queue marked

        // The dispatcher's lanes listen from the start, on every database.
        List<String> notices = connectionsNamed(DatabaseNotices.APPLICATION_NAME);
        assertEquals(
                1,
                notices.stream().filter(row -> row.startsWith(database + ": ")).count(),
                notices.toString());
        assertEquals(
                List.of(),
                notices.stream().filter(row -> !row.endsWith(": 1")).toList(),
                "one notices connection per database: " + notices);
        for (String former : FORMER) {
            assertEquals(List.of(), connectionsNamed(former), "no connection of its own: " + former);
        }
        long listening = Db.count(
                pool,
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND application_name LIKE 'pigeon%'
                  AND query ~* '^\\s*(UN)?LISTEN'""");
        assertEquals(1, listening, "one connection of this replica on the database LISTENs");

        // The waiter is still served through it.
        post("waited", "to-the-waiter");
        HttpResponse<String> answer = waiting.get(30, TimeUnit.SECONDS);
        assertEquals(201, answer.statusCode(), answer.body());
        sockets.forget(inbox).await().atMost(WITHIN);
    }
}
