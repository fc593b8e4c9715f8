package io.pigeon.api.v2;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.pigeon.pool.PoolClients;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgPool;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import jakarta.inject.Inject;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/**
 * Zaqar's pools and flavors admin API (v2, and v1's pools): operator only, each registered server reached and
 * migrated before it is stored, its password never answered, Zaqar's statuses and documents.
 */
@QuarkusTest
class V2PoolAdminTest {

    @Inject
    Pool pool;

    @Inject
    Vertx vertx;

    @Inject
    PoolClients clients;

    private final String project = Api.newProject();
    private final String suffix = UUID.randomUUID().toString().substring(0, 8);

    /** No pool of a test outlives it, whatever it asserted: a pool that takes queues would take every later test's. */
    @AfterEach
    void forgetPools() {
        Db.run(pool, "DELETE FROM pools WHERE name LIKE $1", "%-" + suffix);
    }

    private RequestSpecification operator() {
        return Api.as(project).header("X-Roles", "admin");
    }

    private String newDatabase() {
        return Db.newDatabase(pool);
    }

    private Response register(String name, String body) {
        return operator().contentType(ContentType.JSON).body(body).put("/v2/pools/" + name);
    }

    private static String password(String uri) {
        return URI.create(uri).getUserInfo().split(":", 2)[1];
    }

    /** The tables of the pool's database, read with its own connection. */
    private long tables(String uri, String table) {
        PgPool direct = PgPool.pool(vertx, PgConnectOptions.fromUri(uri), new PoolOptions().setMaxSize(1));
        try {
            return Db.count(direct, "SELECT count(*) FROM information_schema.tables WHERE table_name = $1", table);
        } finally {
            direct.closeAndAwait();
        }
    }

    @Test
    void aRegisteredPoolIsMigratedAndShownWithoutItsPassword() {
        String uri = newDatabase();
        String name = "pool-a-" + suffix;
        register(name, "{\"uri\": \"" + uri + "\", \"weight\": 100, \"options\": {\"zone\": \"eu-1\"}}")
                .then()
                .statusCode(201)
                .header("Location", "/v2/pools/" + name);
        // The server took Pigeon's schema.
        assertEquals(1, tables(uri, "messages"));
        assertEquals(1, tables(uri, "placements"));

        Response shown = operator().get("/v2/pools/" + name);
        shown.then()
                .statusCode(200)
                .body("name", equalTo(name))
                .body("weight", equalTo(100))
                .body("flavor", nullValue())
                .body("href", equalTo("/v2/pools/" + name))
                .body("$", not(hasKey("options")))
                .body("uri", equalTo(uri.replace(":" + password(uri) + "@", ":*****@")));
        assertFalse(shown.asString().contains(":" + password(uri) + "@"), shown.asString());
        operator()
                .get("/v2/pools/" + name + "?detailed=true")
                .then()
                .statusCode(200)
                .body("options.zone", equalTo("eu-1"));

        operator()
                .contentType(ContentType.JSON)
                .body("{\"weight\": 0}")
                .patch("/v2/pools/" + name)
                .then()
                .statusCode(200)
                .body("weight", equalTo(0))
                .body("$", not(hasKey("options")));
        // Registering the same server under another name is a conflict; nothing is stored.
        register("pool-b-" + suffix, "{\"uri\": \"" + uri + "\", \"weight\": 1}")
                .then()
                .statusCode(409)
                .body("title", equalTo("Resource conflict"))
                .body("description", equalTo("The database URI is in use by another pool."));
        operator()
                .get("/v2/pools/pool-b-" + suffix)
                .then()
                .statusCode(404)
                .body("description", equalTo("Pool pool-b-" + suffix + " does not exist"));

        operator().delete("/v2/pools/" + name).then().statusCode(204);
        operator().get("/v2/pools/" + name).then().statusCode(404);
        operator().delete("/v2/pools/" + name).then().statusCode(204);
    }

    /**
     * A new pool's uri passes only sslmode and application_name to the drivers (pgjdbc's socketFactory and the like load
     * classes); a pool stored before that list shows every parameter whose name holds password or key hidden.
     */
    @Test
    void poolUrisPassOnlyTheDriverListAndHideSecretParameters() {
        String name = "params-" + suffix;
        String uri = newDatabase();
        for (String parameter : List.of("socketFactory=org.example.Evil", "sslpassword=s3cret", "loggerFile=/tmp/x")) {
            register(name, "{\"uri\": \"" + uri + "?" + parameter + "\", \"weight\": 0}")
                    .then()
                    .statusCode(400)
                    .body("description", Matchers.containsString("may set only sslmode, application_name"));
        }
        operator().get("/v2/pools/" + name).then().statusCode(404);
        register(name, "{\"uri\": \"" + uri + "?sslmode=disable&application_name=pigeon-pool\", \"weight\": 0}")
                .then()
                .statusCode(201);
        operator()
                .get("/v2/pools/" + name)
                .then()
                .statusCode(200)
                .body("uri", Matchers.endsWith("?sslmode=disable&application_name=pigeon-pool"));

        // As registered before the list: only the catalogue's row holds the secrets.
        String legacy = "legacy-" + suffix;
        assertStoredRowShownWithout(
                legacy,
                "postgresql://pigeon:pw1@127.0.0.1:1/x?sslpassword=s3cret&SSLKEY=k3y&Api_Key=k4&sslmode=require",
                List.of("pw1", "s3cret", "k3y", "k4"));
        operator()
                .get("/v2/pools/" + legacy)
                .then()
                .body(
                        "uri",
                        equalTo(
                                "postgresql://pigeon:*****@127.0.0.1:1/x?sslpassword=*****&SSLKEY=*****&Api_Key=*****&sslmode=require"));
    }

    /**
     * The outside attack on issue 25 item 11: %-encoded separators in the database name or application_name passed
     * driver parameters (a class to load, server settings) and showed passwords. Each PUT is refused (400, naming the
     * part) before any driver is used, nothing is stored, and no secret is answered; a legacy row holding one is shown
     * without it.
     */
    @Test
    void encodedSeparatorsInAPoolUriAreRefusedAndNeverShowSecrets() {
        String name = "inj-" + suffix;
        String server = "postgresql://u:pw@127.0.0.1:15432/";
        record Case(String uri, String field) {}
        for (Case c : List.of(
                new Case(server + "db%3FsocketFactory%3Djava.lang.Object", "uri database name"),
                new Case(server + "db%3Foptions%3D-csearch_path%253Devil", "uri database name"),
                new Case(
                        server + "db?application_name=x%26options%3D-cwork_mem%253D1",
                        "uri parameter application_name"),
                new Case("postgresql://u@127.0.0.1:15432/db%3Fpassword%3DHunter2", "uri database name"),
                new Case(server + "db?application_name=a%26sslpassword%3DHunter3", "uri parameter application_name"))) {
            Response refused = register(name, "{\"uri\": \"" + c.uri() + "\", \"weight\": 1}");
            refused.then().statusCode(400).body("description", Matchers.startsWith(c.field()));
            assertFalse(refused.asString().contains("Hunter"), refused.asString());
            assertFalse(refused.asString().contains(":pw@"), refused.asString());
        }
        operator().get("/v2/pools/" + name).then().statusCode(404);

        assertStoredRowShownWithout(
                "inj-legacy-" + suffix,
                "postgresql://u@127.0.0.1:1/db%3Fpassword%3DHunter2?application_name=a%26sslpassword%3DHunter3",
                List.of("Hunter"));
    }

    /**
     * A pool row stored as {@code uri} before the rules (inserted straight into the catalogue) is shown by the v2 and
     * v1 GETs and the detailed listing without any of {@code secrets}.
     */
    private void assertStoredRowShownWithout(String name, String uri, List<String> secrets) {
        Db.run(pool, "INSERT INTO pools (name, uri, weight) VALUES ($1, $2, 0)", name, uri);
        for (String path : List.of("/v2/pools/" + name, "/v2/pools?detailed=true", "/v1/pools/" + name)) {
            Response shown = operator().get(path);
            shown.then().statusCode(200);
            for (String secret : secrets) {
                assertFalse(shown.asString().contains(secret), path + ": " + shown.asString());
            }
        }
    }

    @Test
    void onlyTheOperatorManagesPools() {
        Api.as(project).get("/v2/pools").then().statusCode(403).body("title", equalTo("Not authorized"));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"uri\": \"postgresql://localhost/x\", \"weight\": 1}")
                .put("/v2/pools/p")
                .then()
                .statusCode(403);
        Api.as(project).delete("/v2/pools/p").then().statusCode(403);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"pool_list\": [\"p\"]}")
                .put("/v2/flavors/f")
                .then()
                .statusCode(403);
        Api.as(project).get("/v1/pools").then().statusCode(403);
        // Any project may read the flavors, to choose one.
        Api.as(project).get("/v2/flavors").then().statusCode(200);
    }

    @Test
    void badRegistrationsAreRefusedNamingTheFieldAndNothingIsStored() {
        String name = "bad-" + suffix;
        record Case(String body, int status, String description) {}
        for (Case c : List.of(
                new Case("{\"weight\": 1}", 400, "A pool needs `uri` and `weight`."),
                new Case("{\"uri\": \"postgresql://localhost/x\"}", 400, "A pool needs `uri` and `weight`."),
                new Case(
                        "{\"uri\": \"postgresql://localhost/x\", \"weight\": -1}",
                        400,
                        "weight must be an integer from 0 to 4294967295."),
                new Case(
                        "{\"uri\": \"postgresql://localhost/x\", \"weight\": 4294967296}",
                        400,
                        "weight must be an integer from 0 to 4294967295."),
                new Case(
                        "{\"uri\": \"postgresql://localhost/x\", \"weight\": \"big\"}",
                        400,
                        "weight must be an integer from 0 to 4294967295."),
                new Case(
                        "{\"uri\": \"postgresql://localhost/x\", \"weight\": 1, \"options\": []}",
                        400,
                        "options must be an object."),
                new Case(
                        "{\"uri\": \"postgresql://localhost/x\", \"weight\": 1, \"group\": \"g\"}",
                        400,
                        "Unknown field `group`"),
                new Case(
                        "{\"uri\": \"mongodb://localhost:27017\", \"weight\": 1}", 400, "uri must be a PostgreSQL URL"),
                new Case(
                        "{\"uri\": \"postgresql://localhost/" + "x".repeat(250) + "\", \"weight\": 1}",
                        400,
                        "uri must be a PostgreSQL URL of at most 255 characters"),
                new Case("[1]", 400, "The document must be a JSON object."))) {
            register(name, c.body())
                    .then()
                    .statusCode(c.status())
                    .body("description", Matchers.startsWith(c.description()));
        }
        // A server that does not answer: Zaqar's "cannot connect", without the password, in the answer and in the log.
        List<String> logged = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                logged.add(String.valueOf(record.getMessage()) + " " + Arrays.toString(record.getParameters()));
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger.getLogger("").addHandler(capture);
        Response unreachable;
        try {
            unreachable = register(name, "{\"uri\": \"postgresql://pigeon:s3cret-pw@127.0.0.1:1/x\", \"weight\": 1}");
        } finally {
            Logger.getLogger("").removeHandler(capture);
        }
        unreachable
                .then()
                .statusCode(400)
                .body("title", equalTo("Invalid request body"))
                .body("description", equalTo("cannot connect to postgresql://pigeon:*****@127.0.0.1:1/x"));
        assertFalse(unreachable.asString().contains("s3cret-pw"));
        Assertions.assertTrue(logged.stream().anyMatch(line -> line.contains("127.0.0.1:1")), logged.toString());
        assertFalse(logged.stream().anyMatch(line -> line.contains("s3cret-pw")), logged.toString());
        operator().get("/v2/pools/" + name).then().statusCode(404);
        operator()
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/pools/bad$name")
                .then()
                .statusCode(400);
        operator()
                .get("/v2/pools?limit=0")
                .then()
                .statusCode(400)
                .body("description", equalTo("Limit must be at least 1 and no greater than 20."));
    }

    @Test
    void poolsAreListedInNameOrderWithMarkers() {
        List<String> names = List.of("list-" + suffix + "-1", "list-" + suffix + "-2", "list-" + suffix + "-3");
        for (String name : names) {
            register(name, "{\"uri\": \"" + newDatabase() + "\", \"weight\": 10}")
                    .then()
                    .statusCode(201);
        }
        String marker = "list-" + suffix + "-0";
        Response first = operator().get("/v2/pools?limit=2&marker=" + marker + "&detailed=true");
        first.then()
                .statusCode(200)
                .body("pools.name", contains(names.get(0), names.get(1)))
                .body("pools[0].options", equalTo(Map.of()))
                .body("links[0].rel", equalTo("next"))
                .body("links[0].href", equalTo("/v2/pools?marker=" + names.get(1) + "&limit=2&detailed=true"));
        operator()
                .get(first.jsonPath().getString("links[0].href"))
                .then()
                .statusCode(200)
                .body("pools.name[0]", equalTo(names.get(2)));
        operator()
                .get("/v2/pools?marker=" + "~")
                .then()
                .statusCode(200)
                .body("pools", empty())
                .body("links", empty());
        operator()
                .get("/v1/pools?limit=1&marker=" + marker)
                .then()
                .statusCode(200)
                .body("pools.name", contains(names.get(0)));
        for (String name : names) {
            operator().delete("/v2/pools/" + name).then().statusCode(204);
        }
    }

    @Test
    void flavorsNameExistingPoolsAndKeepTheirLastPool() {
        String gold = "gold-" + suffix;
        String one = "f1-" + suffix;
        String two = "f2-" + suffix;
        register(one, "{\"uri\": \"" + newDatabase() + "\", \"weight\": 10}")
                .then()
                .statusCode(201);
        register(two, "{\"uri\": \"" + newDatabase() + "\", \"weight\": 10}")
                .then()
                .statusCode(201);

        operator()
                .contentType(ContentType.JSON)
                .body("{\"pool_list\": [\"" + one + "\", \"nope-" + suffix + "\"]}")
                .put("/v2/flavors/" + gold)
                .then()
                .statusCode(400)
                .body("title", equalTo("Unable to create"))
                .body(
                        "description",
                        equalTo("Flavor " + gold + " could not be created, error:Pool nope-" + suffix
                                + " does not exist"));
        Api.as(project).get("/v2/flavors/" + gold).then().statusCode(404);
        operator()
                .contentType(ContentType.JSON)
                .body("{\"pool_list\": []}")
                .put("/v2/flavors/" + gold)
                .then()
                .statusCode(400);

        operator()
                .contentType(ContentType.JSON)
                .body("{\"pool_list\": [\"" + one + "\"]}")
                .put("/v2/flavors/" + gold)
                .then()
                .statusCode(201)
                .header("Location", "/v2/flavors/" + gold);
        Api.as(project)
                .get("/v2/flavors/" + gold)
                .then()
                .statusCode(200)
                .body("name", equalTo(gold))
                .body("pool_list", contains(one))
                .body("capabilities", contains("FIFO", "CLAIMS", "DURABILITY", "AOD", "HIGH_THROUGHPUT"))
                .body("href", equalTo("/v2/flavors/" + gold));
        operator().get("/v2/pools/" + one).then().body("flavor", equalTo(gold));

        // PATCH sets the pools: two joins, one leaves.
        operator()
                .contentType(ContentType.JSON)
                .body("{\"pool_list\": [\"" + two + "\"]}")
                .patch("/v2/flavors/" + gold)
                .then()
                .statusCode(200)
                .body("pool_list", contains(two));
        operator().get("/v2/pools/" + one).then().body("flavor", nullValue());
        operator()
                .contentType(ContentType.JSON)
                .body("{\"capabilities\": {}}")
                .patch("/v2/flavors/" + gold)
                .then()
                .statusCode(400)
                .body("description", equalTo("`pool_list` needs to be specified"));
        operator()
                .contentType(ContentType.JSON)
                .body("{\"pool_list\": [\"" + one + "\"]}")
                .patch("/v2/flavors/none-" + suffix)
                .then()
                .statusCode(404)
                .body("description", equalTo("Flavor none-" + suffix + " does not exist"));

        // The last pool of a flavor stays (Zaqar's 403) until it leaves the flavor.
        operator()
                .delete("/v2/pools/" + two)
                .then()
                .statusCode(403)
                .body("title", equalTo("Unable to delete"))
                .body("description", equalTo("This pool is used by flavors " + gold + "; It cannot be deleted."));
        Api.as(project)
                .get("/v2/flavors?detailed=true")
                .then()
                .statusCode(200)
                .body("flavors.find { it.name == '" + gold + "' }.pool_list", contains(two));

        operator().delete("/v2/flavors/" + gold).then().statusCode(204);
        operator().get("/v2/pools/" + two).then().body("flavor", nullValue());
        operator().delete("/v2/pools/" + two).then().statusCode(204);
        operator().delete("/v2/pools/" + one).then().statusCode(204);
    }

    @Test
    void aPoolThatHoldsQueuesCannotBeDeleted() {
        String name = "holding-" + suffix;
        register(name, "{\"uri\": \"" + newDatabase() + "\", \"weight\": 10}")
                .then()
                .statusCode(201);
        SqlClient server = clients.of(name).await().indefinitely();
        server.query("INSERT INTO queues (project, name) VALUES ('someone', 'q')")
                .execute()
                .await()
                .indefinitely();
        operator()
                .delete("/v2/pools/" + name)
                .then()
                .statusCode(403)
                .body("title", equalTo("Unable to delete"))
                .body(
                        "description",
                        equalTo("Pool " + name + " holds queues or delivery groups; it cannot be deleted."));
        operator().get("/v2/pools/" + name).then().statusCode(200);
        server.query("DELETE FROM queues").execute().await().indefinitely();
        operator().delete("/v2/pools/" + name).then().statusCode(204);
    }

    @Test
    void theConfiguredDatabaseIsNotAPoolWhateverAddressNamesIt() {
        String home = Db.configuredDatabase().replace("@localhost:", "@127.0.0.1:");
        register("home-" + suffix, "{\"uri\": \"" + home + "\", \"weight\": 1}")
                .then()
                .statusCode(409)
                .body(
                        "description",
                        equalTo("The database URI names the configured database, which holds the catalogue."));
        operator().get("/v2/pools/home-" + suffix).then().statusCode(404);
    }
}
