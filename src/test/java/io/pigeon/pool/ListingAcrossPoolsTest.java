package io.pigeon.pool;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.util.UUID;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Listing a project's queues (and topics) when they live on several servers: one name order across the configured
 * database and every pool, with markers, metadata and count as from one server; a pool that does not answer makes
 * the listing 503 rather than incomplete; the operator's health report says how each pool is. (The queues are put on
 * each server directly, as placement leaves them.)
 */
@QuarkusTest
class ListingAcrossPoolsTest {

    @Inject
    Pool pool;

    @Inject
    PoolService pools;

    @Inject
    PoolClients clients;

    private final String project = Api.newProject();
    private final String suffix = UUID.randomUUID().toString().substring(0, 8);

    @AfterEach
    void deregister() {
        Db.run(pool, "DELETE FROM pools WHERE name LIKE $1", "%-" + suffix);
    }

    private SqlClient register(String name) {
        String full = name + "-" + suffix;
        pools.register(full, new PoolSpec(Db.newDatabase(pool), 1L, null, null))
                .await()
                .indefinitely();
        return clients.of(full).await().indefinitely();
    }

    private void queue(SqlClient server, String name, String metadata) {
        server.preparedQuery("INSERT INTO queues (project, name, metadata) VALUES ($1, $2, $3::text::jsonb)")
                .execute(Tuple.of(project, name, metadata))
                .await()
                .indefinitely();
    }

    @Test
    void queuesOfEveryServerAreListedInOneNameOrder() {
        SqlClient first = register("list-1");
        SqlClient second = register("list-2");
        queue(pool, "a", "{\"on\": \"home\"}");
        queue(pool, "d", "{}");
        queue(first, "b", "{\"on\": \"first\"}");
        queue(first, "e", "{}");
        queue(second, "c", "{\"on\": \"second\"}");
        queue(second, "f", "{}");
        queue(first, "~t1", "{}");
        queue(pool, "~t2", "{}");

        Api.as(project)
                .get("/v2/queues?limit=2&detailed=true&with_count=true")
                .then()
                .statusCode(200)
                .body("queues.name", contains("a", "b"))
                .body("queues[1].metadata.on", equalTo("first"))
                .body("count", equalTo(6))
                .body("links[0].href", equalTo("/v2/queues?marker=b&limit=2&detailed=true&with_count=true"));
        Api.as(project)
                .get("/v2/queues?marker=b&limit=2&detailed=true")
                .then()
                .statusCode(200)
                .body("queues.name", contains("c", "d"))
                .body("queues[0].metadata.on", equalTo("second"));
        Api.as(project).get("/v2/queues?marker=d&limit=2").then().body("queues.name", contains("e", "f"));
        Api.as(project)
                .get("/v2/queues?marker=f&limit=2")
                .then()
                .body("queues", empty())
                .body("links", empty());
        Api.as(project).get("/v2/queues?name=e").then().body("queues.name", contains("e"));
        Api.as(project)
                .get("/v1/queues?limit=4")
                .then()
                .statusCode(200)
                .body("queues.name", contains("a", "b", "c", "d"));
        Api.as(project).get("/v2/topics").then().statusCode(200).body("topics.name", contains("t1", "t2"));
    }

    @Test
    void aPoolThatDoesNotAnswerMakesTheListing503() {
        queue(pool, "a", "{}");
        // As a pool whose server went away after it was registered.
        Db.run(
                pool,
                "INSERT INTO pools (name, uri, weight) VALUES ($1, 'postgresql://nobody@127.0.0.1:1/gone', 1)",
                "gone-" + suffix);
        Api.as(project)
                .get("/v2/queues")
                .then()
                .statusCode(503)
                .body("title", equalTo("Service temporarily unavailable"));
        Db.run(pool, "DELETE FROM pools WHERE name = $1", "gone-" + suffix);
        Api.as(project).get("/v2/queues").then().statusCode(200).body("queues.name", contains("a"));
    }

    @Test
    void theHealthReportSaysHowEachPoolIs() {
        register("healthy");
        Db.run(
                pool,
                "INSERT INTO pools (name, uri, weight) VALUES ($1, 'postgresql://nobody@127.0.0.1:1/gone', 1)",
                "down-" + suffix);
        Api.as(project)
                .header("X-Roles", "admin")
                .get("/v2/health")
                .then()
                .statusCode(200)
                .body("storage_reachable", equalTo(true))
                .body("catalog_reachable", equalTo(true))
                .body("pools.'healthy-" + suffix + "'.storage_reachable", equalTo(true))
                .body(
                        "pools.'healthy-" + suffix + "'.operation_status.values().succeeded",
                        Matchers.everyItem(equalTo(true)))
                .body("pools.'down-" + suffix + "'.storage_reachable", equalTo(false));
    }
}
