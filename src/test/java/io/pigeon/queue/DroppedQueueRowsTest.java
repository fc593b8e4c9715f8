package io.pigeon.queue;

import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * No foreign key ties messages and claims to their queue (migration V10): deleting a queue deletes them itself, and
 * rows that a racing post or claim writes for the queue after its delete are reclaimed by the sweeper.
 */
@QuarkusTest
class DroppedQueueRowsTest {

    private static final String POST = "{\"messages\": [{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}]}";

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    private static long queueId(Pool pool, String project, String queue) {
        return Db.count(pool, "SELECT id FROM queues WHERE project = $1 AND name = $2", project, queue);
    }

    @Test
    void deletingAQueueDeletesItsMessagesAndClaimsAndTheSweeperReclaimsLateRows() {
        String project = Api.newProject();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(POST)
                .post("/v2/queues/doomed/messages")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/doomed/claims?limit=1")
                .then()
                .statusCode(201);
        long id = queueId(pool, project, "doomed");
        assertEquals(2, Db.count(pool, "SELECT count(*) FROM messages WHERE queue_id = $1", id));
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM claims WHERE queue_id = $1", id));

        Api.as(project).delete("/v2/queues/doomed").then().statusCode(204);
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM messages WHERE queue_id = $1", id));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM claims WHERE queue_id = $1", id));
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM dropped_queues WHERE queue_id = $1", id));

        // What a post and a claim that read the queue before its delete committed would write after it.
        Db.run(
                pool,
                "INSERT INTO messages (queue_id, client_id, ttl, body, expires_at) "
                        + "VALUES ($1, gen_random_uuid(), 300, '\"late\"', now() + interval '5 minutes')",
                id);
        Db.run(
                pool,
                "INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids) "
                        + "VALUES (gen_random_uuid(), $1, 300, 60, now() + interval '5 minutes', '{}')",
                id);
        // The queue made again under its name is another queue: the late rows are not its.
        Api.as(project).get("/v2/queues/doomed/stats").then().statusCode(200).body("messages.total", is(0));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/queues/doomed")
                .then()
                .statusCode(201);
        Api.as(project)
                .get("/v2/queues/doomed/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages.size()", is(0));
        Api.as(project).get("/v2/queues/doomed/stats").then().statusCode(200).body("messages.total", is(0));

        // While a statement that saw the queue may still be running, the sweeper leaves its rows.
        sweeper.sweep().await().indefinitely();
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM messages WHERE queue_id = $1", id));
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM dropped_queues WHERE queue_id = $1", id));

        Db.run(pool, "UPDATE dropped_queues SET dropped_at = now() - interval '6 minutes' WHERE queue_id = $1", id);
        sweeper.sweep().await().indefinitely();
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM messages WHERE queue_id = $1", id));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM claims WHERE queue_id = $1", id));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dropped_queues WHERE queue_id = $1", id));
        // The queue of the same name kept its own rows.
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1 AND name = 'doomed'", project));
    }

    @Test
    void rowsWrittenByPostsAndClaimsRacingDeletesAreAllAccountedFor() throws Exception {
        String project = Api.newProject();
        AtomicBoolean deleting = new AtomicBoolean(true);
        ExecutorService clients = Executors.newFixedThreadPool(7);
        try {
            List<Callable<Integer>> work = new ArrayList<>();
            for (int client = 0; client < 6; client++) {
                boolean claims = client % 2 == 1;
                work.add(() -> {
                    int answered = 0;
                    while (deleting.get()) {
                        int status = claims
                                ? Api.as(project)
                                        .contentType(ContentType.JSON)
                                        .body("{\"ttl\": 300, \"grace\": 60}")
                                        .post("/v2/queues/raced/claims?limit=2")
                                        .statusCode()
                                : Api.as(project)
                                        .contentType(ContentType.JSON)
                                        .body(POST)
                                        .post("/v2/queues/raced/messages")
                                        .statusCode();
                        assertTrue(status == 201 || status == 204 || status == 404, "answered " + status);
                        answered++;
                    }
                    return answered;
                });
            }
            work.add(() -> {
                for (int round = 0; round < 40; round++) {
                    Api.as(project).delete("/v2/queues/raced").then().statusCode(204);
                    Thread.sleep(5);
                }
                deleting.set(false);
                return 40;
            });
            for (Future<Integer> done : clients.invokeAll(work)) {
                assertTrue(done.get() > 0);
            }
        } finally {
            clients.shutdownNow();
        }

        // Every message or claim whose queue is gone belongs to a queue the sweeper will reclaim.
        String orphans = "SELECT count(*) FROM %s r WHERE NOT EXISTS (SELECT 1 FROM queues q WHERE q.id = r.queue_id) "
                + "AND NOT EXISTS (SELECT 1 FROM dropped_queues d WHERE d.queue_id = r.queue_id)";
        assertEquals(0, Db.count(pool, orphans.formatted("messages")));
        assertEquals(0, Db.count(pool, orphans.formatted("claims")));
        // (A delete that found the queue gone already drops nothing.)
        assertTrue(Db.count(pool, "SELECT count(*) FROM dropped_queues") > 0);

        Db.run(pool, "UPDATE dropped_queues SET dropped_at = now() - interval '6 minutes'");
        sweeper.sweep().await().indefinitely();
        String left = "SELECT count(*) FROM %s r WHERE NOT EXISTS (SELECT 1 FROM queues q WHERE q.id = r.queue_id)";
        assertEquals(0, Db.count(pool, left.formatted("messages")));
        assertEquals(0, Db.count(pool, left.formatted("claims")));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dropped_queues"));
    }
}
