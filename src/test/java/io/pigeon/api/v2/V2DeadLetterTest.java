package io.pigeon.api.v2;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.dispatch.DispatchSettings;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.maintenance.Sweeper;
import io.pigeon.maintenance.SweeperSettings;
import io.pigeon.message.UnreadableMessages;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.pool.PoolClients;
import io.pigeon.redrive.RedriveSettings;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A message claimed _max_claim_count times, and not deleted, moves to the dead-letter queue. */
@QuarkusTest
class V2DeadLetterTest {

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    @Inject
    SweeperSettings sweeperSettings;

    @Inject
    RedriveSettings redriveSettings;

    @Inject
    DispatchSettings dispatchSettings;

    @Inject
    QueueMetrics metrics;

    @Inject
    PoolClients poolClients;

    @Inject
    MessageCipher cipher;

    @Inject
    UnreadableMessages unreadable;

    private final String project = Api.newProject();

    private Response claim(String queue) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/" + queue + "/claims?limit=5");
    }

    /** Ends the claim as its TTL would, by the database clock. */
    private void endClaim(Response claimed) {
        String location = claimed.header("Location");
        UUID claimId = UUID.fromString(location.substring(location.lastIndexOf('/') + 1));
        Db.run(pool, "UPDATE claims SET expires_at = now() - interval '1 second' WHERE id = $1", claimId);
        Db.run(pool, "UPDATE messages SET claim_expires_at = now() - interval '1 second' WHERE claim_id = $1", claimId);
    }

    @Test
    void aMessageClaimedTooOftenMovesToTheDeadLetterQueue() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(
                        "{\"_max_claim_count\": 2, \"_dead_letter_queue\": \"dead\", \"_dead_letter_queue_messages_ttl\": 777}")
                .put("/v2/queues/work")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": \"poison\"}, {\"ttl\": 300, \"body\": \"fine\"}]}")
                .post("/v2/queues/work/messages")
                .then()
                .statusCode(201);

        Response first = claim("work");
        first.then().statusCode(201).body("messages.body", contains("poison", "fine"));
        // "fine" is deleted by its worker; "poison" is not.
        Api.as(project)
                .delete(first.jsonPath().getString("messages[1].href"))
                .then()
                .statusCode(204);
        endClaim(first);

        Response second = claim("work");
        second.then().statusCode(201).body("messages.body", contains("poison"));
        endClaim(second);

        // Claimed twice: no third claim, whether or not the sweeper has run.
        claim("work").then().statusCode(204);

        // The scheduled sweep may get there first; either way, after this sweep the move has happened.
        sweeper.sweep().await().indefinitely();
        assertEquals(
                1,
                Db.count(
                        pool,
                        """
                SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id
                WHERE q.project = $1 AND q.name = 'dead'""",
                        project));

        Api.as(project).get("/v2/queues/work/stats").then().body("messages.total", equalTo(0));
        Api.as(project)
                .get("/v2/queues/dead/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.body", contains("poison"))
                .body("messages[0].ttl", equalTo(777));
        // In the dead-letter queue it starts afresh: it can be claimed there.
        claim("dead").then().statusCode(201).body("messages.body", contains("poison"));
    }

    @Test
    void withoutADeadLetterQueueTheClaimCountDoesNotLimitClaims() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_claim_count\": 1}")
                .put("/v2/queues/plain");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}]}")
                .post("/v2/queues/plain/messages");
        for (int round = 0; round < 3; round++) {
            Response claimed = claim("plain");
            claimed.then().statusCode(201);
            endClaim(claimed);
        }
    }

    /**
     * Claims expire while two replicas' sweeps run back to back, side by side (the second replica's sweeper is one
     * of its own: within one process sweeps wait for each other): whenever a claim ends, each of its
     * messages must end up in the dead-letter queue, never stranded in the queue, claimed out and never moved.
     */
    @Test
    void claimsEndingDuringSweepsLeaveNoMessageStranded() throws Exception {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_claim_count\": 1, \"_dead_letter_queue\": \"race-dead\"}")
                .put("/v2/queues/race")
                .then()
                .statusCode(201);
        int messages = 240;
        for (int posted = 0; posted < messages; posted += 20) {
            StringBuilder batch = new StringBuilder("{\"messages\": [");
            for (int i = 0; i < 20; i++) {
                batch.append(i == 0 ? "" : ",")
                        .append("{\"ttl\": 600, \"body\": ")
                        .append(posted + i)
                        .append('}');
            }
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(batch.append("]}").toString())
                    .post("/v2/queues/race/messages")
                    .then()
                    .statusCode(201);
        }
        for (int claimed = 0; claimed < messages; claimed += 4) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"ttl\": 60, \"grace\": 60}")
                    .post("/v2/queues/race/claims?limit=4")
                    .then()
                    .statusCode(201);
        }
        // Each claim ends at its own moment over the next 1.5 s, by the database clock.
        Db.run(
                pool,
                """
                WITH spread AS (
                    SELECT c.queue_id, c.id, now() + (row_number() OVER (ORDER BY c.id)) * interval '25 milliseconds' AS ends
                    FROM claims c JOIN queues q ON q.id = c.queue_id WHERE q.project = $1 AND q.name = 'race'),
                c AS (UPDATE claims SET expires_at = s.ends FROM spread s WHERE claims.queue_id = s.queue_id
                      AND claims.id = s.id RETURNING claims.id, claims.expires_at)
                UPDATE messages SET claim_expires_at = c.expires_at FROM c WHERE messages.claim_id = c.id""",
                project);
        long until = System.currentTimeMillis() + 2_000;
        ExecutorService sweepers = Executors.newFixedThreadPool(2);
        List<Future<?>> running = new ArrayList<>();
        for (Sweeper replica : List.of(
                sweeper,
                new Sweeper(
                        sweeperSettings,
                        redriveSettings,
                        dispatchSettings,
                        metrics,
                        poolClients,
                        cipher,
                        unreadable))) {
            running.add(sweepers.submit(() -> {
                while (System.currentTimeMillis() < until) {
                    replica.sweep().await().indefinitely();
                }
                return null;
            }));
        }
        for (Future<?> future : running) {
            future.get();
        }
        sweepers.shutdown();
        sweeper.sweep().await().indefinitely();
        long left = Db.count(
                pool,
                "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id "
                        + "WHERE q.project = $1 AND q.name = 'race'",
                project);
        long dead = Db.count(
                pool,
                "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id "
                        + "WHERE q.project = $1 AND q.name = 'race-dead'",
                project);
        assertEquals(0, left, "messages stranded in the queue");
        assertEquals(messages, dead, "messages in the dead-letter queue");
    }

    @Test
    void aDeadLetterQueueCreatedByAnotherTransactionDuringTheSweepReceivesTheMessage() throws Exception {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_claim_count\": 1, \"_dead_letter_queue\": \"late-dead\"}")
                .put("/v2/queues/late")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 600, \"body\": \"late\"}]}")
                .post("/v2/queues/late/messages")
                .then()
                .statusCode(201);
        endClaim(claim("late").then().statusCode(201).extract().response());

        // Another replica (or a client) creates the dead-letter queue and has not committed yet: the sweep's snapshot
        // does not hold the queue, and its insert waits for that transaction.
        SqlConnection other = pool.getConnection().await().indefinitely();
        try {
            other.query("BEGIN").execute().await().indefinitely();
            other.preparedQuery("INSERT INTO queues (project, name) VALUES ($1, 'late-dead')")
                    .execute(Tuple.of(project))
                    .await()
                    .indefinitely();
            CompletableFuture<?> sweep = sweeper.sweep().subscribeAsCompletionStage();
            Eventually.await(
                    "the sweep waits for the other transaction",
                    Duration.ofSeconds(10),
                    () -> Db.count(
                                    pool,
                                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                            + "AND query LIKE '%INSERT INTO queues%' AND query LIKE '%dead_letter%'")
                            > 0);
            other.query("COMMIT").execute().await().indefinitely();
            sweep.get(10, TimeUnit.SECONDS); // before, it failed: its move had no target queue
        } finally {
            other.closeAndAwait();
        }
        Api.as(project)
                .get("/v2/queues/late-dead/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.body", contains("late"));
    }
}
