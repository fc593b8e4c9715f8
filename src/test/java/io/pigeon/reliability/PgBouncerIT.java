package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Slow;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Pigeon through Debian's PgBouncer (1.18) in front of a real PostgreSQL 15, in each pool mode, as a client sees it.
 * In session mode two packaged replicas start (so the migrations ran through PgBouncer), serve the Zaqar cycle, and a
 * claim waiting on one replica is woken by a post to the other (only a NOTIFY reaches it). In transaction mode, with
 * a pool of many server connections and of one, Pigeon refuses to start with the line that says why; straight to
 * PostgreSQL it never refuses. Apart from Pigeon, plain JDBC and Pigeon's client show what transaction mode breaks: a
 * LISTEN, a session advisory lock and a cached prepared statement stay on a server session that the next transaction
 * does not get, while a transaction-scoped advisory lock (Pigeon's, and Flyway 12's migration lock) holds.
 */
@Slow
class PgBouncerIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    /** Far above a start on a loaded 2-core machine (about 20 s). */
    private static final Duration START_BOUND = Duration.ofSeconds(240);

    private static ReplicatedPostgres postgres;
    private static int databases;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Replica> replicas = new ArrayList<>();
    private final List<PgBouncer> bouncers = new ArrayList<>();

    @BeforeAll
    static void server() throws Exception {
        String missing = PgBouncer.missing();
        assumeTrue(missing == null, () -> "no PgBouncer checks here: " + missing);
        postgres = ReplicatedPostgres.alone();
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (postgres != null) {
            postgres.close();
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (Replica replica : replicas) {
            replica.kill();
        }
        for (PgBouncer bouncer : bouncers) {
            bouncer.close();
        }
    }

    @Test
    void inSessionModePigeonMigratesServesAndWakesWaitersAcrossReplicas() throws Exception {
        PgBouncer bouncer = bouncer("session", 60);
        String database = newDatabase();
        Replica a = start("pgbouncer-session-a", bouncer.url(database));
        Replica b = start("pgbouncer-session-b", bouncer.url(database));
        awaitServing(a);
        awaitServing(b);
        // The migrations ran through PgBouncer: each is recorded as applied, none failed.
        try (Connection direct = DriverManager.getConnection(
                        "jdbc:postgresql://127.0.0.1:" + postgres.primaryPort + "/" + database, "postgres", "");
                ResultSet rows = direct.createStatement()
                        .executeQuery("SELECT count(*) FILTER (WHERE success), count(*) FILTER (WHERE NOT success),"
                                + " max(version::int) FROM flyway_schema_history WHERE version IS NOT NULL")) {
            rows.next();
            assertEquals(migrationsShipped(), rows.getInt(1), "migrations applied through PgBouncer");
            assertEquals(0, rows.getInt(2), "failed migrations");
        }

        // The Zaqar cycle: a queue, a post, a claim that takes it, a delete, and the queue empty again.
        String project = "bouncer-" + System.nanoTime();
        assertEquals(201, send(a, project, "PUT", "/v2/queues/work", "{}").statusCode());
        HttpResponse<String> posted = send(
                a, project, "POST", "/v2/queues/work/messages", "{\"messages\": [{\"ttl\": 300, \"body\": \"one\"}]}");
        assertEquals(201, posted.statusCode(), posted.body());
        HttpResponse<String> claimed =
                send(b, project, "POST", "/v2/queues/work/claims?limit=5", "{\"ttl\": 60, \"grace\": 60}");
        assertEquals(201, claimed.statusCode(), claimed.body());
        JsonNode message = JSON.readTree(claimed.body()).path("messages").get(0);
        assertEquals("one", message.path("body").asText());
        String href = message.path("href").asText();
        assertEquals(204, send(b, project, "DELETE", href, null).statusCode());
        HttpResponse<String> stats = send(a, project, "GET", "/v2/queues/work/stats", null);
        assertEquals(
                0, JSON.readTree(stats.body()).path("messages").path("total").asInt(), stats.body());

        // A claim waiting on replica a, woken by a post to replica b: only the notice (LISTEN/NOTIFY through
        // PgBouncer) tells a; without it the claim would end empty (204) when its 20 s wait ran out.
        CompletableFuture<HttpResponse<String>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return send(a, project, "POST", "/v2/queues/work/claims?limit=1", "{\"ttl\": 60, \"wait\": 20}");
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Eventually.await("the claim waiting on replica a", REQUEST_TIMEOUT, () -> waiters(a) == 1);
        assertEquals(
                201,
                send(
                                b,
                                project,
                                "POST",
                                "/v2/queues/work/messages",
                                "{\"messages\": [{\"ttl\": 300, \"body\": \"wake\"}]}")
                        .statusCode());
        HttpResponse<String> woken = waiting.get(REQUEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(201, woken.statusCode(), "the waiting claim ended without the post: " + woken.body());
        assertEquals(
                "wake",
                JSON.readTree(woken.body()).path("messages").get(0).path("body").asText());
    }

    @Test
    void inTransactionModePigeonRefusesToStartAndSaysWhy() throws Exception {
        for (int poolSize : List.of(20, 1)) {
            PgBouncer bouncer = bouncer("transaction", poolSize);
            Replica refused = start("pgbouncer-transaction-" + poolSize, bouncer.url(newDatabase()));
            assertTrue(
                    refused.process().waitFor(START_BOUND.toSeconds(), TimeUnit.SECONDS),
                    "still running through a transaction pooler (pool size " + poolSize + "):\n" + log(refused));
            String log = log(refused);
            assertTrue(refused.process().exitValue() != 0, log);
            assertTrue(log.contains("lends a server session per transaction"), "pool size " + poolSize + ":\n" + log);
            assertTrue(log.contains("pool_mode=session"), log);
            assertTrue(log.contains("LISTEN") && log.contains("prepared statements"), log);
        }
    }

    @Test
    void straightToPostgresPigeonNeverRefuses() throws Exception {
        Replica direct =
                start("pgbouncer-none", "postgresql://127.0.0.1:" + postgres.primaryPort + "/" + newDatabase());
        awaitServing(direct);
        assertFalse(log(direct).contains("lends a server session per transaction"), log(direct));
    }

    @Test
    void transactionModeLosesListenAndSessionLocksButKeepsTransactionLocks() throws Exception {
        PgBouncer bouncer = bouncer("transaction", 2);
        String database = newDatabase();
        // Simple queries only: pgjdbc's own named statements (its BEGIN and COMMIT among them) would clash on the
        // sessions
        // both connections share (prepared statement "S_1" already exists), which is the next test's subject.
        String url = bouncer.jdbcUrl(database) + "?preferQueryMode=simple";
        try (Connection listener = DriverManager.getConnection(url, "postgres", "");
                Connection other = DriverManager.getConnection(url, "postgres", "")) {
            // With the pool's idle server session lent last-in first-out, `other`'s open transaction holds the session
            // `listener` just used; `listener`'s next statement gets the pool's second session.
            listener.createStatement().execute("LISTEN pigeon_probe");
            listener.createStatement().execute("SELECT pg_advisory_lock(4242)");
            other.setAutoCommit(false);
            assertEquals(
                    List.of("pigeon_probe"),
                    strings(other, "SELECT pg_listening_channels()"),
                    "the LISTEN went with the server session to another client");
            assertEquals(List.of(), strings(listener, "SELECT pg_listening_channels()"), "the listener's session");
            assertEquals(
                    List.of("false"),
                    strings(listener, "SELECT pg_advisory_unlock(4242)::text"),
                    "the session lock is not the listener's any more");
            other.commit();
            // A transaction-scoped lock lives and ends with its transaction, whichever session lends it.
            listener.setAutoCommit(false);
            assertEquals(List.of("true"), strings(listener, "SELECT pg_try_advisory_xact_lock(4343)::text"));
            assertEquals(
                    List.of("1"),
                    strings(
                            listener,
                            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4343"
                                    + " AND pid = pg_backend_pid()"),
                    "the transaction's lock, held by its own session for the whole transaction");
            listener.commit();
        }
    }

    @Test
    void transactionModeLosesTheReactiveClientsPreparedStatements() throws Exception {
        // Pigeon's own client (Vert.x's, caching each prepared statement per connection, as Pigeon's pool does) on a
        // PgBouncer of its own, so that its sessions are lent in a known order. (pgjdbc would heal this by itself:
        // it prepares again and retries a statement PostgreSQL says does not exist.)
        PgBouncer bouncer = bouncer("transaction", 2);
        String database = newDatabase();
        Vertx vertx = Vertx.vertx();
        try (Connection other = DriverManager.getConnection(bouncer.jdbcUrl(database), "postgres", "")) {
            PgConnectOptions options = PgConnectOptions.fromUri(bouncer.url(database))
                    .setUser("postgres")
                    .setPassword("postgres")
                    .setCachePreparedStatements(true);
            PgConnection client = PgConnection.connect(vertx, options)
                    .toCompletionStage()
                    .toCompletableFuture()
                    .get(60, TimeUnit.SECONDS);
            client.preparedQuery("SELECT $1::int + 1")
                    .execute(Tuple.of(1))
                    .toCompletionStage()
                    .toCompletableFuture()
                    .get(60, TimeUnit.SECONDS);
            other.setAutoCommit(false);
            strings(other, "SELECT 1"); // holds the session the client prepared its statement on
            ExecutionException missing =
                    assertThrows(ExecutionException.class, () -> client.preparedQuery("SELECT $1::int + 1")
                            .execute(Tuple.of(2))
                            .toCompletionStage()
                            .toCompletableFuture()
                            .get(60, TimeUnit.SECONDS));
            assertTrue(
                    missing.getCause().getMessage().contains("does not exist"),
                    "the cached statement on the next session: " + missing.getCause());
            other.commit();
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }

    private PgBouncer bouncer(String mode, int poolSize) throws Exception {
        PgBouncer bouncer = PgBouncer.start(postgres.primaryPort, mode, poolSize);
        bouncers.add(bouncer);
        return bouncer;
    }

    private static synchronized String newDatabase() throws SQLException {
        String name = "pigeon_bouncer_" + ++databases;
        postgres.createDatabase(name);
        return name;
    }

    private Replica start(String name, String url) throws IOException {
        Map<String, String> config = new HashMap<>();
        config.put("quarkus.datasource.reactive.url", url);
        config.put("quarkus.datasource.username", "postgres");
        config.put("quarkus.datasource.password", "postgres");
        Replica replica = Replica.start(name, config, Replica.FIRST_JIT_TIER);
        replicas.add(replica);
        return replica;
    }

    /** Ready, and its database answering through it (v1's health asks the database). */
    private void awaitServing(Replica replica) {
        Eventually.await("replica " + replica.name() + " serving", START_BOUND, () -> {
            if (!replica.alive()) {
                throw new AssertionError("replica " + replica.name() + " exited:\n" + log(replica));
            }
            try {
                return http.send(
                                        HttpRequest.newBuilder(URI.create(replica.url() + "/v1/health"))
                                                .timeout(Duration.ofSeconds(10))
                                                .build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 204;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    private int waiters(Replica replica) {
        try {
            String metrics = http.send(
                            HttpRequest.newBuilder(URI.create(replica.url() + "/q/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            for (String line : metrics.split("\n")) {
                if (line.startsWith("pigeon_waiters ") || line.startsWith("pigeon_waiters{")) {
                    return (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return -1;
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private HttpResponse<String> send(Replica replica, String project, String method, String path, String body)
            throws IOException, InterruptedException {
        return replica.send(http, REQUEST_TIMEOUT, project, method, path, body);
    }

    private static List<String> strings(Connection connection, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (ResultSet rows = connection.createStatement().executeQuery(sql)) {
            while (rows.next()) {
                values.add(rows.getString(1));
            }
        }
        return values;
    }

    private static int migrationsShipped() throws IOException {
        try (var files = Files.list(Path.of("src/main/resources/db/migration"))) {
            return (int) files.filter(file -> file.getFileName().toString().matches("V\\d+__.*\\.sql"))
                    .count();
        }
    }

    private static String log(Replica replica) {
        try {
            return Files.readString(replica.log());
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
