package io.pigeon.claim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.StatementRequests;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The claims of one fifo queue that wait on a replica while the queue's claim statement runs are taken together in
 * the next statement (migration V34, decision 0020), and each is handed groups of its own. Here a test transaction
 * holds the queue's fifo lock, as a running claim would, while 16 consumers claim 10 each from 16 groups of 10
 * messages posted round-robin: one claim waits in the database, fifteen on the replica; when the lock is let go, the
 * fifteen go in one statement, and every consumer gets one whole group, in post order.
 */
@QuarkusTest
class FifoClaimsTogetherTest {

    private static final int GROUPS = 16;
    private static final int PER_GROUP = 10;

    @Inject
    Pool pool;

    @Inject
    ClaimService claims;

    @Inject
    MeterRegistry registry;

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    @Test
    void waitingClaimsShareAStatementAndEachGetsAGroupOfItsOwn() throws Exception {
        String project = Api.newProject();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_ordering\": \"fifo\"}")
                .put("/v2/queues/together")
                .then()
                .statusCode(201);
        // A claim on the empty queue teaches this replica that the queue is fifo, so the claims below go straight to
        // the fifo statement.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 600}")
                .post("/v2/queues/together/claims")
                .then()
                .statusCode(204);
        for (int round = 0; round < PER_GROUP; round++) {
            StringBuilder messages = new StringBuilder();
            for (int group = 0; group < GROUPS; group++) {
                messages.append(messages.isEmpty() ? "" : ", ")
                        .append("{\"ttl\": 3600, \"group\": \"g%d\", \"body\": \"g%d-%d\"}"
                                .formatted(group, group, round));
            }
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"messages\": [" + messages + "]}")
                    .post("/v2/queues/together/messages")
                    .then()
                    .statusCode(201);
        }
        long queueId = Db.count(pool, "SELECT id FROM queues WHERE project = $1 AND name = 'together'", project);
        long statementsBefore = StatementRequests.statements(registry, "fifo-claim");
        double claimsBefore = StatementRequests.carried(registry, "fifo-claim");

        List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
        SqlConnection holder = pool.getConnection().await().indefinitely();
        try {
            holder.begin().await().indefinitely();
            holder.preparedQuery("SELECT pg_advisory_xact_lock(hashtextextended('pigeon.fifo:' || $1::bigint, 0))")
                    .execute(Tuple.of(queueId))
                    .await()
                    .indefinitely();
            for (int i = 0; i < GROUPS; i++) {
                answers.add(http.sendAsync(
                        FifoClaimTurnsTest.request(project, "/v2/queues/together/claims?limit=10", "{\"ttl\": 600}"),
                        HttpResponse.BodyHandlers.ofString()));
            }
            Eventually.await(
                    "one claim waits for the queue's lock in the database, the others on the replica",
                    Duration.ofSeconds(30),
                    () -> claims.fifoClaimsWaiting() == GROUPS - 1);
        } finally {
            holder.close().await().indefinitely();
        }

        Set<String> groups = new HashSet<>();
        for (CompletableFuture<HttpResponse<String>> answer : answers) {
            HttpResponse<String> claim = answer.get(60, TimeUnit.SECONDS);
            assertEquals(201, claim.statusCode(), claim.body());
            List<String> bodies = JsonPath.from(claim.body()).getList("messages.body", String.class);
            String group = bodies.get(0).substring(0, bodies.get(0).indexOf('-'));
            List<String> wholeGroup = IntStream.range(0, PER_GROUP)
                    .mapToObj(round -> group + "-" + round)
                    .toList();
            assertEquals(wholeGroup, bodies, "a claim of 10 takes one whole group of 10, in post order");
            assertTrue(groups.add(group), "two claims were handed group " + group);
        }
        assertEquals(GROUPS, groups.size());
        assertEquals(
                GROUPS,
                StatementRequests.carried(registry, "fifo-claim") - claimsBefore,
                "every claim went through the fifo statement");
        assertEquals(
                2,
                StatementRequests.statements(registry, "fifo-claim") - statementsBefore,
                "the claim waiting in the database alone, then the fifteen waiting on the replica together");
    }
}
