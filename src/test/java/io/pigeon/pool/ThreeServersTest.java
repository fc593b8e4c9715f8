package io.pigeon.pool;

import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Receiver;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import io.restassured.response.ValidatableResponse;
import io.restassured.specification.RequestSpecification;
import io.vertx.mutiny.sqlclient.Pool;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Pools on three PostgreSQL servers: the tests' own server (the configured database, which holds the catalogue) and
 * two more started here. Every check of where a thing lives reads that server's tables directly.
 */
@QuarkusTest
class ThreeServersTest {

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    private static EmbeddedPostgres second;
    private static EmbeddedPostgres third;
    private static Path thirdData;
    private static int thirdPort;

    @Inject
    Pool home;

    @Inject
    PoolClients poolClients;

    private final String project = Api.newProject();
    private final String suffix = UUID.randomUUID().toString().substring(0, 8);

    @BeforeAll
    static void startServers() throws IOException {
        second = server(Files.createTempDirectory("pigeon-pool-b"), 0);
        thirdData = Files.createTempDirectory("pigeon-pool-c");
        third = server(thirdData, 0);
        thirdPort = third.getPort();
    }

    private static EmbeddedPostgres server(Path data, int port) throws IOException {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(false)
                .setServerConfig("max_connections", "100");
        if (port > 0) {
            builder.setPort(port);
        }
        return builder.start();
    }

    @AfterAll
    static void stopServers() throws IOException {
        second.close();
        third.close();
    }

    @AfterEach
    void deregister() {
        Db.run(home, "DELETE FROM flavors WHERE name LIKE $1", "%-" + suffix);
        Db.run(home, "DELETE FROM pools WHERE name LIKE $1", "%-" + suffix);
    }

    private RequestSpecification operator() {
        return Api.as(project).header("X-Roles", "admin");
    }

    /** A new database on {@code server}, as a pool's uri. */
    private static String newDatabase(EmbeddedPostgres server) {
        String name = "pool_" + UUID.randomUUID().toString().replace("-", "");
        execute(server, "postgres", "CREATE DATABASE " + name);
        return "postgresql://postgres:postgres@localhost:" + server.getPort() + "/" + name;
    }

    private static String databaseOf(String uri) {
        return uri.substring(uri.lastIndexOf('/') + 1);
    }

    private static void execute(EmbeddedPostgres server, String database, String sql) {
        try (Connection connection = server.getDatabase("postgres", database).getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first column of the first row of {@code sql} on that server's database. */
    private static long count(EmbeddedPostgres server, String uri, String sql) {
        try (Connection connection =
                        server.getDatabase("postgres", databaseOf(uri)).getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private long countOf(EmbeddedPostgres server, String uri, String table, String queue) {
        String where = table.equals("queues") ? "name" : table.equals("subscriptions") ? "source" : null;
        if (where != null) {
            return count(
                    server,
                    uri,
                    "SELECT count(*) FROM " + table + " WHERE project = '" + project + "' AND " + where + " = '" + queue
                            + "'");
        }
        return count(
                server,
                uri,
                "SELECT count(*) FROM " + table + " t JOIN queues q ON q.id = t.queue_id WHERE q.project = '" + project
                        + "' AND q.name = '" + queue + "'");
    }

    private String register(String name, String uri, long weight, String flavor) {
        String full = name + "-" + suffix;
        operator()
                .contentType("application/json")
                .body("{\"uri\": \"" + uri + "\", \"weight\": " + weight
                        + (flavor == null ? "" : ", \"flavor\": \"" + flavor + "\"") + "}")
                .put("/v2/pools/" + full)
                .then()
                .statusCode(201);
        return full;
    }

    private String placementOf(String queue) {
        var rows = Db.run(home, "SELECT pool FROM placements WHERE project = $1 AND queue = $2", project, queue);
        assertEquals(1, rows.size(), "placements of " + queue);
        return rows.iterator().next().getString("pool");
    }

    private String post(String queue, String body) {
        return Api.as(project)
                .contentType("application/json")
                .body("{\"messages\": [" + body + "]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201)
                .extract()
                .path("resources[0]");
    }

    private ValidatableResponse patchDeadLetterQueue(String queue, String deadLetterQueue) {
        String patch = "[{\"op\": \"add\", \"path\": \"/metadata/_dead_letter_queue\", \"value\": \"" + deadLetterQueue
                + "\"}]";
        return Api.as(project)
                .contentType("application/openstack-messaging-v2.0-json-patch")
                .body(patch.getBytes(StandardCharsets.UTF_8))
                .patch("/v2/queues/" + queue)
                .then();
    }

    @Test
    void everyDataPathRunsOnTheServerOfItsQueue() {
        String onSecond = newDatabase(second);
        String onThird = newDatabase(third);
        String plainPool = register("plain", onSecond, 1, null);
        String fastFlavor = "fast-" + suffix;
        String fastPool = register("fast", onThird, 1, fastFlavor);
        operator()
                .contentType("application/json")
                .body("{\"pool_list\": [\"" + fastPool + "\"]}")
                .put("/v2/flavors/" + fastFlavor)
                .then()
                .statusCode(201);
        // A pool's connections take Pigeon's session settings once open, as the configured database's do.
        assertEquals(
                "force_generic_plan off",
                Db.run(
                                poolClients.of(plainPool).await().indefinitely(),
                                "SELECT current_setting('plan_cache_mode') || ' ' || current_setting('jit')")
                        .iterator()
                        .next()
                        .getString(0));

        // Placement: without a flavor among the pools of none, with one among its own.
        Api.as(project)
                .contentType("application/json")
                .body("{}")
                .put("/v2/queues/plain")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType("application/json")
                .body("{\"_flavor\": \"" + fastFlavor + "\"}")
                .put("/v2/queues/quick")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType("application/json")
                .body("{\"_flavor\": \"nothing-" + suffix + "\"}")
                .put("/v2/queues/nowhere")
                .then()
                .statusCode(400)
                .body("description", containsString("nothing-" + suffix));
        assertEquals(plainPool, placementOf("plain"));
        assertEquals(fastPool, placementOf("quick"));
        assertEquals(1, countOf(second, onSecond, "queues", "plain"));
        assertEquals(1, countOf(third, onThird, "queues", "quick"));
        assertEquals(0, Db.count(home, "SELECT count(*) FROM queues WHERE project = $1", project));
        Api.as(project).get("/v2/queues/quick").then().statusCode(200).body("_flavor", equalTo(fastFlavor));

        // Subscriptions, posts, their notifications, claims, deletes, stats: on the queue's server.
        for (String queue : List.of("plain", "quick")) {
            EmbeddedPostgres server = queue.equals("plain") ? second : third;
            String uri = queue.equals("plain") ? onSecond : onThird;
            Api.as(project)
                    .contentType("application/json")
                    .body("{\"subscriber\": \"" + receiver.url("/" + suffix + "/" + queue) + "\", \"ttl\": 3600}")
                    .post("/v2/queues/" + queue + "/subscriptions")
                    .then()
                    .statusCode(201);
            assertEquals(1, countOf(server, uri, "subscriptions", queue));
            String first = post(queue, "{\"body\": {\"n\": 1}}");
            post(queue, "{\"body\": {\"n\": 2}}, {\"body\": {\"n\": 3}}");
            assertEquals(3, countOf(server, uri, "messages", queue));
            Eventually.await(
                    "the notifications of " + queue,
                    Duration.ofSeconds(20),
                    () -> receiver.calls("/" + suffix + "/" + queue).size() == 3);

            Response claim = Api.as(project)
                    .contentType("application/json")
                    .body("{\"ttl\": 300, \"grace\": 60}")
                    .queryParam("limit", 2)
                    .post("/v2/queues/" + queue + "/claims");
            claim.then().statusCode(201).body("messages", hasSize(2));
            assertEquals(2, count(server, uri, "SELECT count(*) FROM messages WHERE claim_id IS NOT NULL"));
            String claimId =
                    claim.header("Location").substring(claim.header("Location").lastIndexOf('/') + 1);
            Api.as(project).delete(first + "?claim_id=" + claimId).then().statusCode(204);
            assertEquals(2, countOf(server, uri, "messages", queue));
            Api.as(project)
                    .get("/v2/queues/" + queue + "/stats")
                    .then()
                    .statusCode(200)
                    .body("messages.total", equalTo(2))
                    .body("messages.claimed", equalTo(1))
                    .body("messages.free", equalTo(1));
        }
        Api.as(project)
                .get("/v2/queues")
                .then()
                .statusCode(200)
                .body("queues.name", containsInAnyOrder("plain", "quick"));

        // Purge, on the queue's server.
        Api.as(project)
                .contentType("application/json")
                .body("{\"resource_types\": [\"messages\", \"subscriptions\"]}")
                .post("/v2/queues/quick/purge")
                .then()
                .statusCode(204);
        assertEquals(0, countOf(third, onThird, "messages", "quick"));
        assertEquals(0, countOf(third, onThird, "subscriptions", "quick"));

        // A dead-letter queue lives beside its queue: a new name is placed there, one on another pool refused.
        patchDeadLetterQueue("plain", "quick").statusCode(400).body("description", containsString("another pool"));
        patchDeadLetterQueue("plain", "plain-dead").statusCode(200);
        assertEquals(plainPool, placementOf("plain-dead"));

        // A pool that holds queues is not deleted; once they are gone it is, and its placements with it.
        operator()
                .delete("/v2/pools/" + plainPool)
                .then()
                .statusCode(403)
                .body("description", containsString("holds queues"));
        Api.as(project).delete("/v2/queues/plain").then().statusCode(204);
        assertEquals(0, countOf(second, onSecond, "queues", "plain"));
        operator().delete("/v2/pools/" + plainPool).then().statusCode(204);
        assertEquals(0, Db.count(home, "SELECT count(*) FROM placements WHERE pool = $1", plainPool));
        // Its queue names are placed again where queues now go (only the flavored pool is left: at home).
        Api.as(project)
                .contentType("application/json")
                .body("{}")
                .put("/v2/queues/plain")
                .then()
                .statusCode(201);
        assertEquals(null, placementOf("plain"));
        assertEquals(1, Db.count(home, "SELECT count(*) FROM queues WHERE project = $1 AND name = 'plain'", project));
    }

    private static String inAnHour() {
        return String.format(Locale.ROOT, "%.3f", System.currentTimeMillis() / 1000.0 + 3600);
    }

    @Test
    void delayedDispatchGroupsAreSpreadOverThePoolsAndDeliveredFromEach() {
        String onSecond = newDatabase(second);
        String onThird = newDatabase(third);
        register("groups-b", onSecond, 1, null);
        register("groups-c", onThird, 1, null);
        int groups = 24;
        for (int i = 0; i < groups; i++) {
            Api.as(project)
                    .contentType("application/json")
                    .body("{\"n\": " + i + "}")
                    .post("/v3/queue/key-" + i + "/POST/" + receiver.service("/" + suffix + "/group/" + i))
                    .then()
                    .statusCode(201);
        }
        Eventually.await("every group delivered", Duration.ofSeconds(30), () -> {
            for (int i = 0; i < groups; i++) {
                if (receiver.calls("/" + suffix + "/group/" + i).size() != 1) {
                    return false;
                }
            }
            return true;
        });
        String byProject = "SELECT count(*) FROM dispatch_groups WHERE project = '" + project + "'";
        // Pushes to one key and address merge on one server however many there are (a stable choice).
        for (int i = 0; i < 3; i++) {
            Api.as(project)
                    .contentType("application/json")
                    .body("{\"again\": " + i + "}")
                    .queryParam("ontime", inAnHour())
                    .post("/v3/queue/merged/POST/" + receiver.service("/" + suffix + "/merged"))
                    .then()
                    .statusCode(201);
        }
        long[] where = {
            count(second, onSecond, byProject),
            count(third, onThird, byProject),
            Db.count(home, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project)
        };
        assertEquals(1, where[0] + where[1] + where[2], "one group, on one server");
        Api.as(project)
                .get("/v3/queue/merged/POST/" + receiver.service("/" + suffix + "/merged"))
                .then()
                .statusCode(200)
                .body("groups", hasSize(1))
                .body("groups[0].items", hasSize(3));
        // The groups of one project are spread: with 40 keys, each of the three servers takes some.
        int later = 40;
        for (int i = 0; i < later; i++) {
            Api.as(project)
                    .contentType("application/json")
                    .body("{}")
                    .queryParam("ontime", inAnHour())
                    .post("/v3/queue/later-" + i + "/POST/" + receiver.service("/" + suffix + "/later"))
                    .then()
                    .statusCode(201);
        }
        long laterB = count(second, onSecond, byProject) - where[0];
        long laterC = count(third, onThird, byProject) - where[1];
        long laterHome = Db.count(home, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project) - where[2];
        assertEquals(later, laterB + laterC + laterHome);
        assertTrue(laterB > 0 && laterC > 0 && laterHome > 0, "spread: " + laterB + "/" + laterC + "/" + laterHome);
        // Group ids never meet across servers: each pool's start in a block of their own.
        assertTrue(count(second, onSecond, "SELECT min(id) FROM dispatch_groups") >= 1L << 40);
    }

    @Test
    void aPoolRegisteredThroughAnotherReplicaTakesNewQueuesAndItsNotificationsAreDelivered() {
        String onThird = newDatabase(third);
        // What another replica's registration leaves: the server migrated, the pool in the catalogue.
        PoolUri uri = PoolUri.parse(onThird);
        Flyway.configure()
                .locations("classpath:db/migration")
                .dataSource(uri.jdbcUrl(), uri.user(), uri.password())
                .load()
                .migrate();
        String name = "elsewhere-" + suffix;
        Db.run(home, "INSERT INTO pools (name, uri, weight) VALUES ($1, $2, 1)", name, onThird);

        Api.as(project)
                .contentType("application/json")
                .body("{\"subscriber\": \"" + receiver.url("/" + suffix + "/elsewhere") + "\", \"ttl\": 3600}")
                .post("/v2/queues/fresh/subscriptions")
                .then()
                .statusCode(201);
        post("fresh", "{\"body\": \"hello\"}");
        assertEquals(name, placementOf("fresh"));
        assertEquals(1, countOf(third, onThird, "messages", "fresh"));
        Eventually.await(
                "the notification, from the new pool's dispatcher",
                Duration.ofSeconds(20),
                () -> receiver.calls("/" + suffix + "/elsewhere").size() == 1);
    }

    @Test
    void aStoppedPoolFailsOnlyItsOwnQueuesAndLosesNothingAcknowledged() throws Exception {
        String onSecond = newDatabase(second);
        String onThird = newDatabase(third);
        String live = register("live", onSecond, 1, null);
        String stopping = register("stopping", onThird, 1, null);
        List<String> liveQueues = new ArrayList<>();
        List<String> stoppingQueues = new ArrayList<>();
        for (int i = 0; liveQueues.size() < 2 || stoppingQueues.size() < 2; i++) {
            String queue = "load-" + i;
            Api.as(project)
                    .contentType("application/json")
                    .body("{}")
                    .put("/v2/queues/" + queue)
                    .then()
                    .statusCode(201);
            (placementOf(queue).equals(live) ? liveQueues : stoppingQueues).add(queue);
        }
        Map<String, List<String>> acknowledged = new ConcurrentHashMap<>();
        Map<String, Integer> refusedOnLive = new ConcurrentHashMap<>();
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<String> all = new ArrayList<>(liveQueues);
        all.addAll(stoppingQueues);
        ExecutorService clients = Executors.newFixedThreadPool(all.size());
        List<Future<?>> done = new ArrayList<>();
        for (String queue : all) {
            done.add(clients.submit(() -> {
                int n = 0;
                while (running.get()) {
                    Response answer = Api.as(project)
                            .contentType("application/json")
                            .body("{\"messages\": [{\"body\": " + n++ + "}]}")
                            .post("/v2/queues/" + queue + "/messages");
                    statuses.merge(answer.statusCode(), 1, Integer::sum);
                    if (answer.statusCode() == 201) {
                        acknowledged
                                .computeIfAbsent(queue, q -> new ArrayList<>())
                                .add(answer.path("resources[0]"));
                    } else if (liveQueues.contains(queue)) {
                        refusedOnLive.merge(queue + " " + answer.statusCode(), 1, Integer::sum);
                    }
                }
                return null;
            }));
        }
        Eventually.pause(Duration.ofSeconds(1));
        third.close();
        Eventually.pause(Duration.ofSeconds(2));
        // While it is down: its queues 503, the others keep working, readiness stays up and the report says why.
        for (String queue : stoppingQueues) {
            Api.as(project).get("/v2/queues/" + queue + "/stats").then().statusCode(503);
        }
        Api.as(project).get("/v2/queues/" + liveQueues.get(0) + "/stats").then().statusCode(200);
        RestAssured.given().get("/q/health/ready").then().statusCode(200);
        operator()
                .get("/v2/health")
                .then()
                .statusCode(200)
                .body("catalog_reachable", equalTo(true))
                .body("pools.'" + stopping + "'.storage_reachable", equalTo(false))
                .body("pools.'" + live + "'.storage_reachable", equalTo(true));
        third = server(thirdData, thirdPort);
        Eventually.await(
                "the restarted pool's queues answer again",
                Duration.ofSeconds(30),
                () -> Api.as(project)
                                .get("/v2/queues/" + stoppingQueues.get(0) + "/stats")
                                .statusCode()
                        == 200);
        Eventually.pause(Duration.ofMillis(500));
        running.set(false);
        for (Future<?> client : done) {
            client.get(30, TimeUnit.SECONDS);
        }
        clients.shutdown();

        assertEquals(Map.of(), refusedOnLive, "the live pool's queues never failed");
        assertTrue(statuses.getOrDefault(503, 0) > 0, "the stopped pool's queues answered 503: " + statuses);
        assertEquals(Map.of(201, statuses.get(201), 503, statuses.get(503)), statuses, "only 201 and 503: " + statuses);
        for (String queue : all) {
            List<String> posted = acknowledged.getOrDefault(queue, List.of());
            EmbeddedPostgres server = liveQueues.contains(queue) ? second : third;
            String uri = liveQueues.contains(queue) ? onSecond : onThird;
            assertTrue(stoppingQueues.contains(queue) || !posted.isEmpty());
            assertEquals(posted.size(), countOf(server, uri, "messages", queue), "every acknowledged post of " + queue);
            for (String location : posted) {
                Api.as(project).get(location).then().statusCode(200);
            }
        }
        operator().delete("/v2/pools/" + stopping).then().statusCode(403);
    }
}
