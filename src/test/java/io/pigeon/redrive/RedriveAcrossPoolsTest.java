package io.pigeon.redrive;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.pool.PoolClients;
import io.pigeon.pool.PoolService;
import io.pigeon.pool.PoolSpec;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Redrive on a queue that lives on a registered pool: its task lives and runs on the pool's database, a target on
 * another database is refused, and a task whose replica stopped renewing its lease there is taken over by a replica's
 * look for unheld tasks and finished from where it was.
 */
@QuarkusTest
class RedriveAcrossPoolsTest {

    @Inject
    Pool pool;

    @Inject
    PoolService pools;

    @Inject
    PoolClients clients;

    @Inject
    Sweeper sweeper;

    private final String project = Api.newProject();

    @Test
    void aQueueOnAPoolIsRedrivenThereAndATaskWhoseLeaseLapsedIsTakenOver() {
        String name = "redrive-" + UUID.randomUUID().toString().substring(0, 8);
        pools.register(name, new PoolSpec(Db.newDatabase(pool), 1L, null, null))
                .await()
                .indefinitely();
        Pool server = clients.of(name).await().indefinitely();
        try {
            // Placed before they are made: the queue and its dead-letter queue on the pool, another queue at home.
            Db.run(
                    pool,
                    "INSERT INTO placements (project, queue, pool) VALUES ($1, 'work', $2), ($1, 'dead', $2), "
                            + "($1, 'at-home', NULL)",
                    project,
                    name);
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"_max_claim_count\": 1, \"_dead_letter_queue\": \"dead\"}")
                    .put("/v2/queues/work")
                    .then()
                    .statusCode(201);
            Api.as(project).put("/v2/queues/at-home").then().statusCode(201);
            StringBuilder messages = new StringBuilder("{\"messages\": [");
            for (int i = 0; i < 20; i++) {
                messages.append(i == 0 ? "" : ",")
                        .append("{\"ttl\": 600, \"body\": ")
                        .append(i)
                        .append('}');
            }
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(messages.append("]}").toString())
                    .post("/v2/queues/work/messages")
                    .then()
                    .statusCode(201);
            Response claimed = Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"ttl\": 60}")
                    .post("/v2/queues/work/claims?limit=20");
            List<String> ids = claimed.jsonPath().getList("messages.id");
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"ids\": [\"" + String.join("\", \"", ids) + "\"]}")
                    .post(claimed.header("Location") + "/release")
                    .then()
                    .statusCode(204);
            sweeper.sweep().await().indefinitely();
            assertEquals(20, Db.count(server, "SELECT count(*) FROM messages WHERE dead_letter_source = 'work'"));

            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"target\": \"at-home\"}")
                    .post("/v2/queues/dead/redrive")
                    .then()
                    .statusCode(400)
                    .body("description", containsString("another pool"));

            // One message a second: the replica that started it stops renewing it after the first batch.
            String href = Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"rate\": 1}")
                    .post("/v2/queues/dead/redrive")
                    .then()
                    .statusCode(201)
                    .extract()
                    .header("Location");
            assertEquals(1, Db.count(server, "SELECT count(*) FROM redrive_tasks WHERE project = $1", project));
            assertEquals(0, Db.count(pool, "SELECT count(*) FROM redrive_tasks WHERE project = $1", project));
            Eventually.await(
                    "a first batch",
                    Duration.ofSeconds(10),
                    () -> Api.as(project).get(href).jsonPath().getLong("moved") > 0);
            // As if its replica had died: the lease is another's, and has lapsed. The replica's own run finds it no
            // longer its own and stops; a look for unheld tasks takes it, at the rate, from where it was.
            Db.run(
                    server,
                    "UPDATE redrive_tasks SET lease_token = gen_random_uuid(), lease_until = now() - interval '1 second',"
                            + " rate = 1000 WHERE project = $1",
                    project);
            Eventually.await("the task taken over and done", Duration.ofSeconds(30), () -> "done"
                    .equals(Api.as(project).get(href).jsonPath().getString("state")));
            Api.as(project).get(href).then().body("moved", equalTo(20)).body("skipped", equalTo(0));
            assertEquals(
                    20,
                    Db.count(
                            server,
                            "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id "
                                    + "WHERE q.project = $1 AND q.name = 'work' AND m.claim_count = 0",
                            project));
            assertEquals(
                    0,
                    Db.count(
                            server,
                            "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id "
                                    + "WHERE q.project = $1 AND q.name = 'dead'",
                            project));
        } finally {
            Db.run(server, "DELETE FROM messages");
            Db.run(server, "DELETE FROM redrive_tasks");
            Db.run(server, "DELETE FROM queues");
            pools.delete(name).await().indefinitely();
        }
    }
}
