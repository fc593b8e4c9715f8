package io.pigeon.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.pigeon.pool.PoolUri;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Migrations;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.flywaydb.core.Flyway;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Numbers that a JSON document can write in a few bytes but that stand for a huge value ({@code 1e131071}), stored
 * in every document a tenant (or the operator) fills: queue and topic metadata, subscription options, pool options,
 * message bodies and /v3 item bodies. Each is read back through every path that returns it: the answer is never
 * 5xx, an accepted number comes back with its value, and no answer is larger than what was accepted plus the
 * answer's own envelope. (jsonb wrote such a number out in full: 131,072 digits from 8 bytes.)
 */
@QuarkusTest
class StoredNumbersTest {

    /** Spelled in the document as they are here. */
    private static final List<String> NUMBERS = List.of(
            "1e131071",
            "-1e-131071",
            "1E+100000",
            "123456789e99999",
            "-2.5e-16000",
            "7" + "1".repeat(999),
            "0." + "0".repeat(997) + "1",
            "1" + "2".repeat(2000));

    /** The most an answer may add to the documents it returns: its envelope, links, defaults. */
    private static final int ENVELOPE = 4096;

    private static final ObjectMapper EXACT = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));

    /** Allowed by the test profile; never called (the subscription is a mailto, the /v3 group is due in 9999). */
    private static final String SERVICE =
            Base64.getUrlEncoder().encodeToString("http://127.0.0.1:9/numbers".getBytes(StandardCharsets.UTF_8));

    @Inject
    Pool pool;

    @Inject
    Flyway application;

    @Inject
    Vertx vertx;

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final List<String> failures = new ArrayList<>();

    @AfterEach
    void forgetPools() {
        Db.run(pool, "DELETE FROM pools WHERE name LIKE $1", "%-" + suffix);
    }

    private static RequestSpecification as(String project) {
        return Api.as(project).header("X-Roles", "admin");
    }

    /**
     * One write and the reads that return what it wrote: the write answers 2xx or a 4xx error document, never 5xx;
     * when it was accepted, each read answers 2xx, holds {@code number}'s value wherever the document had it, and is
     * at most {@code documents} times the accepted document plus {@link #ENVELOPE}.
     */
    private void check(String what, String number, String document, Supplier<Response> write, List<Read> reads) {
        what = what + " "
                + (number.length() > 24 ? number.substring(0, 12) + "..(" + number.length() + " characters)" : number);
        Response written = write.get();
        int status = written.statusCode();
        if (status >= 500 || (status >= 400 && !written.asString().contains("\"description\""))) {
            failures.add(what + ": write answered " + status + " " + preview(written.asString()));
            return;
        }
        if (status >= 400) {
            return;
        }
        if (written.asString().length() > document.length() + ENVELOPE) {
            failures.add(what + ": the write's answer is " + written.asString().length() + " characters");
        }
        for (Read read : reads) {
            Response answer = read.send().get();
            String body = answer.asString();
            if (answer.statusCode() != 200) {
                failures.add(what + ": " + read.name() + " answered " + answer.statusCode() + " " + preview(body));
                continue;
            }
            long bound = (long) read.documents() * document.length() + ENVELOPE;
            if (body.length() > bound) {
                failures.add(what + ": " + read.name() + " answered " + body.length() + " characters for a "
                        + document.length() + "-character document");
                continue;
            }
            List<JsonNode> found = parse(body).findValues("n");
            if (found.isEmpty() || !found.stream().allMatch(n -> sameNumber(n, number))) {
                failures.add(what + ": " + read.name() + " did not give the number back: " + preview(body));
            }
        }
    }

    private record Read(String name, int documents, Supplier<Response> send) {}

    private static Read read(String name, Supplier<Response> send) {
        return new Read(name, 1, send);
    }

    private static boolean sameNumber(JsonNode node, String number) {
        if (node.isTextual()) {
            // A message or item body is given back as the text stored; its numbers are inside.
            return node.asText().contains(number);
        }
        return node.isNumber() && node.decimalValue().compareTo(new BigDecimal(number)) == 0;
    }

    /** JSON values compared as JSON means them: numbers by value (1e19 is 10000000000000000000). */
    private static int sameValue(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue());
        }
        return a.equals(b) ? 0 : 1;
    }

    private static JsonNode parse(String body) {
        try {
            return EXACT.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String preview(String text) {
        return text.length() > 300 ? text.substring(0, 300) + "... (" + text.length() + " characters)" : text;
    }

    @Test
    void queueAndTopicMetadataComeBackAsAccepted() {
        for (String number : NUMBERS) {
            String project = Api.newProject();
            String metadata = "{\"n\": " + number + ", \"more\": [{\"n\": " + number + "}]}";
            check(
                    "v2 queue metadata",
                    number,
                    metadata,
                    () -> as(project)
                            .contentType(ContentType.JSON)
                            .body(metadata)
                            .put("/v2/queues/q"),
                    List.of(
                            read("GET /v2/queues/q", () -> as(project).get("/v2/queues/q")),
                            read("GET /v2/queues?detailed=true", () -> as(project)
                                    .get("/v2/queues?detailed=true")),
                            read("GET /v1.1/queues/q", () -> as(project).get("/v1.1/queues/q")),
                            read("GET /v1.1/queues?detailed=true", () -> as(project)
                                    .get("/v1.1/queues?detailed=true")),
                            read("GET /v1/queues/q/metadata", () -> as(project).get("/v1/queues/q/metadata")),
                            read("GET /v1/queues?detailed=true", () -> as(project)
                                    .get("/v1/queues?detailed=true"))));
            String patch = "[{\"op\": \"add\", \"path\": \"/metadata/n\", \"value\": " + number + "}]";
            as(project).put("/v2/queues/patched").then().statusCode(201);
            check(
                    "v2 metadata patch",
                    number,
                    patch,
                    () -> as(project)
                            .contentType("application/openstack-messaging-v2.0-json-patch")
                            .body(patch.getBytes(StandardCharsets.UTF_8))
                            .patch("/v2/queues/patched"),
                    List.of(read("GET /v2/queues/patched", () -> as(project).get("/v2/queues/patched"))));
            check(
                    "v1 queue metadata",
                    number,
                    metadata,
                    () -> {
                        as(project).put("/v1/queues/v1q").then().statusCode(201);
                        return as(project)
                                .contentType(ContentType.JSON)
                                .body(metadata)
                                .put("/v1/queues/v1q/metadata");
                    },
                    List.of(read(
                            "GET /v1/queues/v1q/metadata", () -> as(project).get("/v1/queues/v1q/metadata"))));
            check(
                    "topic metadata",
                    number,
                    metadata,
                    () -> as(project)
                            .contentType(ContentType.JSON)
                            .body(metadata)
                            .put("/v2/topics/t"),
                    List.of(
                            read("GET /v2/topics/t", () -> as(project).get("/v2/topics/t")),
                            read("GET /v2/topics?detailed=true", () -> as(project)
                                    .get("/v2/topics?detailed=true"))));
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    @Test
    void subscriptionOptionsComeBackAsAccepted() {
        for (String number : NUMBERS) {
            String project = Api.newProject();
            String options = "{\"n\": " + number + ", \"nested\": [{\"n\": " + number + "}]}";
            String document =
                    "{\"subscriber\": \"mailto:numbers@example.com\", \"ttl\": 3600, \"options\": " + options + "}";
            String[] id = new String[1];
            check(
                    "queue subscription options",
                    number,
                    document,
                    () -> {
                        Response created = as(project)
                                .contentType(ContentType.JSON)
                                .body(document)
                                .post("/v2/queues/q/subscriptions");
                        id[0] = created.statusCode() == 201 ? created.jsonPath().getString("subscription_id") : null;
                        return created;
                    },
                    List.of(
                            read("GET subscription", () -> as(project).get("/v2/queues/q/subscriptions/" + id[0])),
                            read("GET subscriptions", () -> as(project).get("/v2/queues/q/subscriptions"))));
            check(
                    "topic subscription options",
                    number,
                    document,
                    () -> as(project)
                            .contentType(ContentType.JSON)
                            .body(document)
                            .post("/v2/topics/t/subscriptions"),
                    List.of(read("GET topic subscriptions", () -> as(project).get("/v2/topics/t/subscriptions"))));
            String updated = "{\"options\": " + options + "}";
            check(
                    "subscription options update",
                    number,
                    updated,
                    () -> {
                        String other = as(project)
                                .contentType(ContentType.JSON)
                                .body("{\"subscriber\": \"mailto:other@example.com\", \"ttl\": 3600}")
                                .post("/v2/queues/u/subscriptions")
                                .then()
                                .statusCode(201)
                                .extract()
                                .jsonPath()
                                .getString("subscription_id");
                        id[0] = other;
                        return as(project)
                                .contentType(ContentType.JSON)
                                .body(updated)
                                .patch("/v2/queues/u/subscriptions/" + other);
                    },
                    List.of(read(
                            "GET updated subscription", () -> as(project).get("/v2/queues/u/subscriptions/" + id[0]))));
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    @Test
    void poolOptionsComeBackAsAccepted() {
        String project = Api.newProject();
        String name = "numbers-" + suffix;
        // Weight 0: the pool takes no queue of any other test.
        as(project)
                .contentType(ContentType.JSON)
                .body("{\"uri\": \"" + Db.newDatabase(pool) + "\", \"weight\": 0}")
                .put("/v2/pools/" + name)
                .then()
                .statusCode(201);
        for (String number : NUMBERS) {
            String document = "{\"options\": {\"n\": " + number + "}}";
            check(
                    "pool options",
                    number,
                    document,
                    () -> as(project)
                            .contentType(ContentType.JSON)
                            .body(document)
                            .patch("/v2/pools/" + name),
                    List.of(
                            read("GET /v2/pools/" + name, () -> as(project)
                                    .get("/v2/pools/" + name + "?detailed=true")),
                            new Read("GET /v2/pools?detailed=true", 20, () -> as(project)
                                    .get("/v2/pools?detailed=true&limit=20")),
                            read("GET /v1/pools/" + name, () -> as(project)
                                    .get("/v1/pools/" + name + "?detailed=true"))));
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    /** Bodies are kept as the text received: they never grew. This holds the line. */
    @Test
    void messageAndItemBodiesComeBackAsAccepted() {
        for (String number : NUMBERS) {
            String project = Api.newProject();
            String messages = "{\"messages\": [{\"ttl\": 3600, \"body\": {\"n\": " + number + "}}]}";
            check(
                    "message body",
                    number,
                    messages,
                    () -> as(project)
                            .contentType(ContentType.JSON)
                            .body(messages)
                            .post("/v2/queues/q/messages"),
                    List.of(read("GET messages", () -> as(project).get("/v2/queues/q/messages?echo=true"))));
            String item = "{\"n\": " + number + "}";
            String path = "/v3/queue/k/POST/" + SERVICE;
            check(
                    "/v3 item body",
                    number,
                    item,
                    () -> as(project).contentType(ContentType.JSON).body(item).post(path + "?ontime=253402300799"),
                    List.of(read("GET /v3 pending", () -> as(project).get(path))));
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    /** A number Pigeon refuses is refused with the error document naming the bound, and nothing is stored. */
    @Test
    void aRefusedNumberNamesTheBoundAndStoresNothing() {
        String project = Api.newProject();
        Response beyondNumeric = as(project)
                .contentType(ContentType.JSON)
                .body("{\"n\": -1e-131071}")
                .put("/v2/queues/q");
        assertEquals(400, beyondNumeric.statusCode(), beyondNumeric.asString());
        assertTrue(beyondNumeric.jsonPath().getString("description").contains("16383"), beyondNumeric.asString());
        Response tooLong = as(project)
                .contentType(ContentType.JSON)
                .body("{\"n\": 1" + "0".repeat(1000) + "}")
                .put("/v2/queues/q");
        assertEquals(400, tooLong.statusCode(), tooLong.asString());
        assertTrue(tooLong.jsonPath().getString("description").contains("1000 characters"), tooLong.asString());
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1", project));
    }

    /**
     * What no JSON reader can hold as written: a number whose exponent is beyond BigDecimal's (an int), and half of a
     * surrogate pair (no UTF-8 text holds it, so it would be stored as "?"). Every endpoint that reads a JSON body
     * answers 400 with the error document, and stores nothing.
     */
    @Test
    void anUnreadableNumberOrHalfACharacterIsRefusedByEveryJsonEndpoint() {
        String project = Api.newProject();
        as(project).put("/v2/queues/held").then().statusCode(201);
        String service = "/v3/queue/k/POST/" + SERVICE + "?ontime=" + (System.currentTimeMillis() / 1000 + 86_400);
        List<String> refused = new ArrayList<>();
        for (String value : List.of(
                "1e2147483648",
                "1e-2147483649",
                "0e-2147483648",
                "1.0e-2147483647",
                "1e99999999999",
                "\"\\udfff\"",
                "\"a\\ud800\"",
                "{\"\\udc00\": 1}")) {
            String object = "{\"x\": " + value + "}";
            List<Object[]> writes = List.of(
                    new Object[] {"PUT", "/v2/queues/q-" + suffix, object},
                    new Object[] {"PUT", "/v2/topics/t-" + suffix, object},
                    new Object[] {"PUT", "/v1/queues/held/metadata", object},
                    new Object[] {
                        "PATCH", "/v2/queues/held", "[{\"op\": \"add\", \"path\": \"/x\", \"value\": " + value + "}]"
                    },
                    new Object[] {"POST", "/v2/queues/held/messages", "{\"messages\": [{\"body\": " + value + "}]}"},
                    new Object[] {"POST", "/v1.1/queues/held/messages", "{\"messages\": [{\"body\": " + value + "}]}"},
                    new Object[] {"POST", "/v1/queues/held/messages", "[{\"ttl\": 60, \"body\": " + value + "}]"},
                    new Object[] {"POST", "/v2/queues/held/claims", "{\"ttl\": " + value + "}"},
                    new Object[] {
                        "POST",
                        "/v2/queues/held/subscriptions",
                        "{\"subscriber\": \"mailto:a@example.com\", \"options\": " + object + "}"
                    },
                    new Object[] {"POST", "/v2/queues/held/share", "{\"expires\": " + value + "}"},
                    new Object[] {"POST", "/v2/queues/held/purge", "{\"resource_types\": [" + value + "]}"},
                    new Object[] {"POST", service, object},
                    new Object[] {
                        "PUT",
                        "/v2/pools/p-" + suffix,
                        "{\"weight\": 1, \"uri\": \"postgresql://h/db\", " + "\"options\": " + object + "}"
                    },
                    new Object[] {
                        "PUT", "/v2/flavors/f-" + suffix, "{\"pool_list\": [], \"capabilities\": " + object + "}"
                    });
            for (Object[] write : writes) {
                String type = write[0].equals("PATCH")
                        ? "application/openstack-messaging-v2.0-json-patch"
                        : "application/json";
                Response answer = as(project)
                        .contentType(type)
                        .body(((String) write[2]).getBytes(StandardCharsets.UTF_8))
                        .request((String) write[0], (String) write[1]);
                if (answer.statusCode() != 400 || !answer.asString().contains("\"description\"")) {
                    refused.add(write[0] + " " + write[1] + " " + write[2] + " -> " + answer.statusCode() + " "
                            + preview(answer.asString()));
                }
            }
        }
        assertTrue(refused.isEmpty(), refused.size() + " not refused with 400:\n" + String.join("\n", refused));
        as(project).get("/v2/queues/held").then().statusCode(200).body("x", Matchers.nullValue());
        assertEquals(1, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1", project));
        assertEquals(
                0,
                Db.count(
                        pool,
                        "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id " + "WHERE q.project = $1",
                        project));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1", project));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM pools WHERE name LIKE $1", "%-" + suffix));
    }

    /**
     * Rows written before the documents were kept as text (as jsonb, which holds the value, not the spelling) are
     * converted by the migration without writing their numbers out in full, keeping every value.
     */
    @Test
    void theMigrationConvertsOlderRowsWithoutGrowingThem() {
        PoolUri uri = PoolUri.parse(Db.newDatabase(pool));
        Migrations.migrate(application, uri, "10");
        Pool older = Migrations.open(vertx, uri);
        try {
            String bomb = "{\"n\": 1e131071, \"m\": [-2.5e-16000, 123456789e99999, 0.5, 1e19, \"1e131071\"], "
                    + "\"s\": \"caf\u00e9 \\\" \\\\\", \"o\": {\"t\": true, \"z\": null}}";
            Db.run(older, "INSERT INTO queues (project, name, metadata) VALUES ('p', 'q', $1::text::jsonb)", bomb);
            Db.run(
                    older,
                    "INSERT INTO pools (name, uri, weight, options) VALUES ('p1', 'postgresql://h/db', 0, $1::text::jsonb)",
                    bomb);
            Db.run(
                    older,
                    """
                    INSERT INTO subscriptions (project, source, subscriber, ttl, options, expires_at)
                    VALUES ('p', 'q', 'mailto:a@example.com', 60, $1::text::jsonb, now() + interval '1 hour')""",
                    bomb);
            Migrations.migrate(application, uri, "latest");
            for (String column : List.of("metadata FROM queues", "options FROM pools", "options FROM subscriptions")) {
                String converted = Db.run(older, "SELECT " + column.replace(" FROM", "::text FROM"))
                        .iterator()
                        .next()
                        .getString(0);
                assertTrue(converted.length() < 200, column + ": " + preview(converted));
                assertTrue(
                        parse(bomb).equals(StoredNumbersTest::sameValue, parse(converted)), column + ": " + converted);
            }
        } finally {
            older.closeAndAwait();
        }
    }
}
