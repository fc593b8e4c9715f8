package io.pigeon.fuzz;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Slow;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.config.EncoderConfig;
import io.restassured.config.RestAssuredConfig;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A seeded, generated fuzz of malformed requests across every endpoint: wrong types, huge and deeply nested
 * JSON, invalid UTF-8, bad UUIDs, odd queue names, missing and doubled headers, every limit plus and minus
 * one. Every request is built to be invalid in at least one way, and aimed at a project that holds real
 * data. None may answer 5xx, every 4xx must carry the error document, and nothing stored may change.
 */
@QuarkusTest
@Slow
class MalformedRequestFuzzTest {

    private static final int REQUESTS = 2100;
    /** Send content types as given: no charset appended, which would change what is being tested. */
    private static final RestAssuredConfig AS_GIVEN = RestAssuredConfig.config()
            .encoderConfig(EncoderConfig.encoderConfig().appendDefaultContentCharsetToContentTypeIfUndefined(false));

    private static final long SEED = 20261121L;
    private static final String CLIENT = Api.CLIENT_ID;

    @Inject
    Pool pool;

    private final Random random = new Random(SEED);
    private final String project = Api.newProject();
    private final Set<String> otherProjects = new TreeSet<>();

    /** One malformed request: what it is, for the failure message, and how to send it. */
    private record Probe(String description, Supplier<Response> send) {}

    @Test
    void malformedRequestsNeverBreakAnythingNorChangeData() {
        seed();
        String before = snapshot();
        List<String> failures = new ArrayList<>();
        Map<Integer, Integer> statuses = new TreeMap<>();
        for (int i = 0; i < REQUESTS; i++) {
            Probe probe = probe();
            Response response = probe.send().get();
            int status = response.statusCode();
            statuses.merge(status, 1, Integer::sum);
            if (status >= 500) {
                failures.add(status + " for " + probe.description() + ": " + response.asString());
            } else if (status >= 400 && !isErrorDocument(response)) {
                failures.add(
                        status + " without an error document for " + probe.description() + ": " + response.asString());
            } else if (status < 400) {
                failures.add(status + " (accepted) for " + probe.description());
            }
        }
        System.out.println(
                "Fuzz: " + REQUESTS + " malformed requests (seed " + SEED + "), answers by status: " + statuses);
        assertTrue(
                failures.isEmpty(),
                failures.size() + " bad answers, e.g.:\n"
                        + String.join("\n", failures.subList(0, Math.min(15, failures.size()))));
        assertEquals(before, snapshot(), "stored data changed");
        for (String other : otherProjects) {
            assertEquals(0, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1", other), other);
        }
    }

    private void seed() {
        Api.as(project).put("/v1/queues/sentinel").then().statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"owner\": \"fuzz\"}")
                .put("/v1/queues/sentinel/metadata")
                .then()
                .statusCode(204);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[{\"ttl\": 3600, \"body\": 1}, {\"ttl\": 3600, \"body\": 2}]")
                .post("/v1/queues/sentinel/messages")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 3600, \"body\": \"v2\"}]}")
                .post("/v2/queues/sentinel2/messages")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 3600, \"grace\": 60}")
                .post("/v1/queues/sentinel/claims?limit=1")
                .then()
                .statusCode(201);
        String subscription = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"mailto:fuzz@example.com\", \"ttl\": 3600}")
                .post("/v2/queues/sentinel2/subscriptions")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("subscription_id");
        // Confirmed, so that subscribing it again is a conflict (an unconfirmed one is answered with its id).
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"confirmed\": true}")
                .put("/v2/queues/sentinel2/subscriptions/" + subscription + "/confirm")
                .then()
                .statusCode(204);
        given().header("X-Project-Id", project)
                .contentType(ContentType.JSON)
                .body("{\"pending\": true}")
                .post("/v3/queue/sentinel/POST/" + SERVICE + "?ontime=" + (System.currentTimeMillis() / 1000 + 86_400))
                .then()
                .statusCode(201);
    }

    /** A target the test profile allows: http://127.0.0.1:9/fuzz. */
    private static final String SERVICE =
            Base64.getUrlEncoder().encodeToString("http://127.0.0.1:9/fuzz".getBytes(StandardCharsets.UTF_8));

    private static String base64(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    private Probe malformedDispatchPush() {
        String mergeKey = "sentinel";
        String method = "POST";
        String service = SERVICE;
        String query = "";
        String body = "{\"fine\": 1}";
        switch (random.nextInt(6)) {
            case 0 -> method = pick(List.of("TRACE", "CONNECT", "HEAD", "P0ST", "%00", "x".repeat(100)));
            case 1 -> service = pick(List.of(
                    "not*base64",
                    "%3D%3D%3D",
                    base64("ftp://127.0.0.1/x"),
                    base64("/relative"),
                    base64("http://example.com/x"),
                    base64("http://10.0.0.1/x"),
                    base64("http://[::2]/x"),
                    base64("\u00ff\u00fe\u0000"),
                    base64("http://127.0.0.1:9/x#frag"),
                    base64("http://"),
                    base64("http://127.0.0.1:99999999/x"),
                    "A"));
            case 2 -> query = "?ontime="
                    + pick(List.of(
                            "soon",
                            "-1",
                            "1e5",
                            "99999999999999",
                            "NaN",
                            "Infinity",
                            "253402300800",
                            "1.2.3",
                            "0x10",
                            "%20"));
            case 3 -> query = "?update=" + pick(List.of("sometimes", "ALWAYS", "1", "", "once%00"));
            case 4 -> body = pick(List.of(
                    "",
                    "{",
                    "nul",
                    "[1,]",
                    "{\"a\": 1} trailing",
                    "\"" + "x".repeat(300000) + "\"",
                    "[".repeat(5000) + "]".repeat(5000),
                    "{\"a\": 1, \"a\": 2}"));
            default -> mergeKey = pick(List.of("k".repeat(257), "bad%01key", "%7F"));
        }
        String path = "/v3/queue/" + mergeKey + "/" + method + "/" + service + query;
        String sent = body;
        return new Probe(
                "POST " + path + " " + preview(sent.getBytes(StandardCharsets.UTF_8)),
                () -> client().contentType(ContentType.JSON).body(sent).post(path));
    }

    /** Dead-letter redrive (Pigeon's extension): every start here is invalid, every task id names no task. */
    private Probe malformedRedrive() {
        String method = pick(List.of("POST", "POST", "GET", "DELETE"));
        if (!method.equals("POST")) {
            String path = "/v2/queues/sentinel2/redrive/"
                    + pick(List.of(
                            "zz", "%00", "00000000-0000-0000-0000-000000000000", "%27%20OR%201=1", "x".repeat(300)));
            return new Probe(method + " " + path, () -> client().request(method, path));
        }
        String body = pick(List.of(
                "[]",
                "null",
                "1",
                "{",
                "{\"rate\": 0}",
                "{\"rate\": -1}",
                "{\"rate\": 1001}",
                "{\"rate\": 2147483648}",
                "{\"rate\": 1e400}",
                "{\"rate\": 10.5}",
                "{\"rate\": \"10\"}",
                "{\"rate\": [10]}",
                "{\"target\": 1}",
                "{\"target\": \"bad name\"}",
                "{\"target\": \"" + "t".repeat(65) + "\"}",
                "{\"target\": \"sentinel2\"}",
                "{\"target\": \"no-such-queue\"}",
                "{\"target\": \"sentinel\", \"rate\": 10, \"extra\": true}",
                "{\"rate\": 10, \"rate\": 20}"));
        String queue = random.nextInt(4) == 0 ? pick(List.of("bad$queue", "q".repeat(65), "%00")) : "sentinel2";
        String path = "/v2/queues/" + queue + "/redrive";
        return new Probe(
                "POST " + path + " " + preview(body.getBytes(StandardCharsets.UTF_8)),
                () -> client().contentType(ContentType.JSON).body(body).post(path));
    }

    private Probe malformedSubscription() {
        String body = pick(List.of(
                "",
                "{}",
                "[]",
                "null",
                "{\"ttl\": 600}",
                "{\"subscriber\": 1}",
                "{\"subscriber\": \"ftp://127.0.0.1/x\"}",
                "{\"subscriber\": \"http://example.com/x\"}",
                "{\"subscriber\": \"mailto:nobody\"}",
                "{\"subscriber\": \"http://127.0.0.1/x\", \"ttl\": 59}",
                "{\"subscriber\": \"http://127.0.0.1/x\", \"ttl\": 2147483648}",
                "{\"subscriber\": \"http://127.0.0.1/x\", \"ttl\": 60.5}",
                "{\"subscriber\": \"http://127.0.0.1/x\", \"options\": \"o\"}",
                "{\"subscriber\": \"http://127.0.0.1/x\", \"options\": {\"_retry_policy\": {\"minimum_delay\": 86401}}}",
                "{\"subscriber\": \"http://127.0.0.1/x\", \"options\": {\"_retry_policy\": {\"retry_backoff_function\": \"cubic\"}}}",
                "{\"subscriber\": \"http://127.0.0.1/x\", \"options\": {\"post_headers\": {\"bad name\": \"v\"}}}",
                "{\"subscriber\": \"http://127.0.0.1/x\", \"options\": {\"post_data\": 5}}",
                "{\"subscriber\": \"mailto:fuzz@example.com\"}"));
        String method = pick(List.of("POST", "PATCH", "GET"));
        String path =
                switch (method) {
                    case "POST" -> "/v2/queues/sentinel2/subscriptions";
                    case "PATCH" -> "/v2/queues/sentinel2/subscriptions/"
                            + pick(List.of("00000000000000007fffffff", "zz", "%00"));
                    default -> "/v2/queues/sentinel2/subscriptions?"
                            + pick(List.of("limit=0", "limit=21", "limit=x", "marker=zz"));
                };
        return new Probe(
                method + " " + path + " " + preview(body.getBytes(StandardCharsets.UTF_8)),
                () -> client().contentType(ContentType.JSON).body(body).request(method, path));
    }

    /** Every queue, message and claim of the project, as text. */
    private String snapshot() {
        StringBuilder rows = new StringBuilder();
        for (Row row : Db.run(
                pool,
                """
                SELECT q.name, q.metadata::text, m.id, m.ttl, m.body, m.claim_id, m.claim_count, m.expires_at,
                       (SELECT count(*) FROM claims c WHERE c.queue_id = q.id)
                FROM queues q LEFT JOIN messages m ON m.queue_id = q.id
                WHERE q.project = $1 ORDER BY q.name, m.id""",
                project)) {
            rows.append(row.toJson().encode()).append('\n');
        }
        for (Row row : Db.run(
                pool,
                """
                SELECT g.merge_key, g.method, g.target, g.fire_at, g.state, g.attempts, i.id, i.body
                FROM dispatch_groups g JOIN dispatch_items i ON i.group_id = g.id
                WHERE g.project = $1 ORDER BY g.id, i.id""",
                project)) {
            rows.append(row.toJson().encode()).append('\n');
        }
        for (Row row : Db.run(
                pool,
                """
                SELECT source, subscriber, ttl, options::text, expires_at FROM subscriptions
                WHERE project = $1 ORDER BY id""",
                project)) {
            rows.append(row.toJson().encode()).append('\n');
        }
        for (Row row : Db.run(
                pool,
                "SELECT id, queue, target, rate, state FROM redrive_tasks WHERE project = $1 ORDER BY id",
                project)) {
            rows.append(row.toJson().encode()).append('\n');
        }
        return rows.toString();
    }

    private static boolean isErrorDocument(Response response) {
        if ("HEAD".equals(response.header("X-Method"))) {
            return true;
        }
        String type = response.contentType();
        if (type == null || !type.startsWith("application/json")) {
            return false;
        }
        try {
            JsonPath body = response.jsonPath();
            return body.getString("title") != null && body.getString("description") != null;
        } catch (RuntimeException e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ generators

    private Probe probe() {
        return switch (random.nextInt(12)) {
            case 11 -> malformedRedrive();
            case 9 -> malformedDispatchPush();
            case 10 -> malformedSubscription();
            case 0 -> badQueueName();
            case 1 -> badClientId();
            case 2 -> missingProjectOnV2();
            case 3 -> malformedMessagePost();
            case 4 -> malformedClaim();
            case 5 -> malformedMetadata();
            case 6 -> limitsOffByOne();
            case 7 -> wrongContentType();
            default -> malformedPatch();
        };
    }

    private <T> T pick(List<T> values) {
        return values.get(random.nextInt(values.size()));
    }

    private String version() {
        return random.nextBoolean() ? "v1" : "v2";
    }

    private String queue(String version) {
        return version.equals("v1") ? "sentinel" : "sentinel2";
    }

    private RequestSpecification client() {
        return given().config(AS_GIVEN)
                .urlEncodingEnabled(false)
                .header("X-Project-Id", project)
                .header("Client-ID", CLIENT)
                .accept(ContentType.JSON);
    }

    private Probe badQueueName() {
        String name = pick(List.of(
                "bad$queue",
                "q".repeat(65),
                "caf%C3%A9",
                "dot.name",
                "%20",
                "a%2Fb",
                "%00",
                "%C3%28",
                "%FF%FE",
                "semi;colon",
                "x".repeat(300),
                "%E2%80%AE"));
        String version = version();
        String suffix = pick(List.of("", "/metadata", "/stats", "/messages", "/claims", "/purge"));
        String method = pick(List.of("GET", "PUT", "DELETE", "POST"));
        String path = "/" + version + "/queues/" + name + suffix;
        return new Probe(method + " " + path, () -> client().contentType(ContentType.JSON)
                .body(validBodyFor(suffix, version))
                .request(method, path));
    }

    private Probe badClientId() {
        String version = version();
        String id = pick(List.of(
                "not-a-uuid",
                "3381af92-2b9e-11e3-b191-71861300734",
                "3381af922b9e11e3b19171861300734cc",
                "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz",
                "{}",
                "null",
                "0",
                "' OR 1=1 --",
                "3381af92-2b9e-11e3-b191-71861300734c-extra"));
        String method = pick(List.of("POST", "GET", "DELETE"));
        // v1 needs no Client-ID to delete (as in Zaqar), but one that is sent must be a UUID.
        boolean missing = random.nextInt(4) == 0 && !(version.equals("v1") && method.equals("DELETE"));
        String path = "/" + version + "/queues/" + queue(version) + "/messages";
        String body = version.equals("v1")
                ? "[{\"ttl\": 60, \"body\": \"x\"}]"
                : "{\"messages\": [{\"ttl\": 60, \"body\": \"x\"}]}";
        String query = method.equals("DELETE") ? "?ids=000000000000000000000001" : "";
        return new Probe(method + " " + path + " Client-ID=" + (missing ? "<missing>" : id), () -> {
            RequestSpecification request = given().urlEncodingEnabled(false)
                    .header("X-Project-Id", project)
                    .accept(ContentType.JSON)
                    .contentType(ContentType.JSON)
                    .body(body);
            if (!missing) {
                request.header("Client-ID", id);
            }
            return request.request(method, path + query);
        });
    }

    private Probe missingProjectOnV2() {
        String other = "fuzz-" + random.nextInt(1000);
        otherProjects.add(other);
        String path = pick(List.of(
                "/v2/queues",
                "/v2/queues/sentinel2",
                "/v2/queues/sentinel2/messages",
                "/v2/queues/sentinel2/claims",
                "/v2/queues/sentinel2/stats"));
        String method = path.endsWith("claims") || path.endsWith("messages") ? "POST" : pick(List.of("GET", "PUT"));
        return new Probe(method + " " + path + " without X-Project-Id", () -> given().header("Client-ID", CLIENT)
                .accept(ContentType.JSON)
                .contentType(ContentType.JSON)
                .body(path.endsWith("messages") ? "{\"messages\": [{\"ttl\": 60, \"body\": 1}]}" : "{}")
                .request(method, path));
    }

    private Probe malformedMessagePost() {
        String version = version();
        String path = "/" + version + "/queues/" + queue(version) + "/messages";
        String message = pick(List.of(
                "{\"ttl\": 59, \"body\": 1}",
                "{\"ttl\": 1209601, \"body\": 1}",
                "{\"ttl\": \"60\", \"body\": 1}",
                "{\"ttl\": 60.5, \"body\": 1}",
                "{\"ttl\": -1, \"body\": 1}",
                "{\"ttl\": 1e400, \"body\": 1}",
                "{\"ttl\": 60}",
                "{\"body\": 1, \"ttl\": null}",
                "[]",
                "1",
                "\"x\"",
                "null",
                "{\"ttl\": 60, \"body\": 1, \"delay\": 901}",
                "{\"ttl\": 60, \"body\": 1, \"delay\": -1}",
                "{\"ttl\": 60, \"body\": 1, \"ttl\": 61}",
                "{\"ttl\": 99999999999999999999999, \"body\": 1}"));
        if (version.equals("v1") && message.contains("delay")) {
            message = "{\"ttl\": 59, \"body\": 1, \"delay\": 5}";
        }
        if (version.equals("v2") && message.equals("{\"ttl\": 60}")) {
            message = "{\"ttl\": 60, \"delay\": \"later\", \"body\": 1}";
        }
        String valid = "{\"ttl\": 60, \"body\": {\"ok\": true}}";
        String messages = random.nextBoolean() ? "[" + valid + ", " + message + "]" : "[" + message + "]";
        String document = version.equals("v1") ? messages : "{\"messages\": " + messages + "}";
        byte[] body = mangle(document);
        return new Probe(
                "POST " + path + " " + preview(body),
                () -> client().contentType(ContentType.JSON).body(body).post(path));
    }

    private Probe malformedClaim() {
        String version = version();
        String path = "/" + version + "/queues/" + queue(version) + "/claims";
        String document = pick(List.of(
                "{\"ttl\": 59, \"grace\": 60}",
                "{\"ttl\": 43201, \"grace\": 60}",
                "{\"ttl\": 60, \"grace\": 59}",
                "{\"ttl\": 60, \"grace\": 43201}",
                "{\"ttl\": \"60\", \"grace\": 60}",
                "{\"ttl\": 60, \"grace\": true}",
                "[60, 60]",
                "\"ttl\"",
                "{\"ttl\": "));
        String query = pick(
                List.of("", "?limit=0", "?limit=21", "?limit=-1", "?limit=abc", "?limit=1.5", "?limit=99999999999"));
        if (query.isEmpty() && document.equals("{\"ttl\": 60, \"grace\": 59}") && version.equals("v2")) {
            query = "?limit=0";
        }
        String finalQuery = query;
        byte[] body = mangle(document);
        return new Probe(
                "POST " + path + finalQuery + " " + preview(body),
                () -> client().contentType(ContentType.JSON).body(body).post(path + finalQuery));
    }

    private Probe malformedMetadata() {
        String version = version();
        String path =
                version.equals("v1") ? "/v1/queues/sentinel/metadata" : "/v2/queues/fresh-" + random.nextInt(100000);
        String document = pick(List.of(
                "[\"x\"]",
                "42",
                "\"text\"",
                "{bad json",
                "{\"a\": 1} trailing",
                "{\"a\": 1, \"a\": 2}",
                "{\"k\": \"" + "a".repeat(65536) + "\"}",
                "{\"_default_message_ttl\": 59}",
                "{\"_max_messages_post_size\": 262145}",
                "{\"_default_message_delay\": 901}",
                "{\"_max_claim_count\": 0}",
                "{\"_dead_letter_queue\": \"bad$\"}",
                "{\"nul\": \"a\\u0000b\"}",
                "{\"_enable_encrypt_messages\": \"yes\"}"));
        if (version.equals("v2") && (document.equals("{\"nul\": \"a\\u0000b\"}"))) {
            document = "{\"_default_message_ttl\": \"x\"}";
        }
        byte[] body = mangle(document);
        return new Probe(
                "PUT " + path + " " + preview(body),
                () -> client().contentType(ContentType.JSON).body(body).put(path));
    }

    private Probe limitsOffByOne() {
        String version = version();
        String path = pick(List.of(
                "/" + version + "/queues?limit=0",
                "/" + version + "/queues?limit=21",
                "/" + version + "/queues?limit=x",
                "/" + version + "/queues?detailed=maybe",
                "/" + version + "/queues/" + queue(version) + "/messages?limit=0",
                "/" + version + "/queues/" + queue(version) + "/messages?limit=21",
                "/" + version + "/queues/" + queue(version) + "/messages?echo=perhaps",
                "/" + version + "/queues/" + queue(version) + "/messages?ids="
                        + "000000000000000000000001,".repeat(21)));
        String method = "GET";
        if (random.nextBoolean() && version.equals("v2")) {
            path = pick(List.of(
                    "/v2/queues/sentinel2/messages?pop=0",
                    "/v2/queues/sentinel2/messages?pop=21",
                    "/v2/queues/sentinel2/messages?pop=1&ids=000000000000000000000001",
                    "/v2/queues/sentinel2/messages?pop=x",
                    "/v2/queues/sentinel2/messages"));
            method = "DELETE";
        } else if (random.nextBoolean() && version.equals("v1")) {
            path = pick(List.of(
                    "/v1/queues/sentinel/messages",
                    "/v1/queues/sentinel/messages?ids=" + "000000000000000000000001,".repeat(21)));
            method = "DELETE";
        }
        String finalPath = path;
        String finalMethod = method;
        return new Probe(method + " " + path, () -> client().request(finalMethod, finalPath));
    }

    private Probe wrongContentType() {
        String version = version();
        String path = pick(List.of(
                "/" + version + "/queues/" + queue(version) + "/messages",
                "/" + version + "/queues/" + queue(version) + "/claims",
                version.equals("v1") ? "/v1/queues/sentinel/metadata" : "/v2/queues/sentinel2"));
        String type = pick(List.of(
                "application/x-www-form-urlencoded",
                "text/plain",
                "application/xml",
                "multipart/form-data; boundary=x",
                "application/jsonx",
                "image/png"));
        String method = path.endsWith("metadata") ? "PUT" : path.endsWith("sentinel2") ? "PATCH" : "POST";
        String body =
                version.equals("v1") ? "[{\"ttl\": 60, \"body\": 1}]" : "{\"messages\": [{\"ttl\": 60, \"body\": 1}]}";
        // RestAssured encodes form bodies itself (from a String); every other type goes as raw bytes.
        return new Probe(
                method + " " + path + " as " + type,
                () -> type.startsWith("application/x-www-form-urlencoded")
                        ? client().contentType(type).body(body).request(method, path)
                        : client().contentType(type)
                                .body(body.getBytes(StandardCharsets.UTF_8))
                                .request(method, path));
    }

    private Probe malformedPatch() {
        String document = pick(
                List.of(
                        "[{\"op\": \"remove\", \"path\": \"/metadata/nope\"}]",
                        "[{\"op\": \"move\", \"path\": \"/metadata/a\"}]",
                        "[{\"op\": \"add\", \"path\": \"/a\", \"value\": 1}]",
                        "[{\"op\": \"add\", \"path\": \"/metadata/\", \"value\": 1}]",
                        "[{\"op\": \"add\", \"path\": \"/metadata/x\"}]",
                        "[]",
                        "{}",
                        "[1]",
                        "[{\"op\": \"add\", \"path\": " + "\"/metadata/_default_message_ttl\", \"value\": 1209601}]",
                        "[{\"op\": \"add\", \"path\": \"/metadata/ok\", \"value\": 1}, {\"op\": \"remove\", \"path\": \"/metadata/absent\"}]"));
        byte[] body = mangle(document);
        return new Probe("PATCH /v2/queues/sentinel2 " + preview(body), () -> client().contentType(
                        "application/openstack-messaging-v2.0-json-patch")
                .body(body)
                .patch("/v2/queues/sentinel2"));
    }

    /** Sometimes breaks a document further: invalid UTF-8, deep nesting, truncation, or a huge size. */
    private byte[] mangle(String document) {
        byte[] bytes = document.getBytes(StandardCharsets.UTF_8);
        return switch (random.nextInt(8)) {
            case 0 -> {
                byte[] broken = new byte[bytes.length + 2];
                System.arraycopy(bytes, 0, broken, 0, bytes.length);
                broken[bytes.length] = (byte) 0xC3;
                broken[bytes.length + 1] = (byte) 0x28;
                yield broken;
            }
            case 1 -> ("{\"a\": \"" + "\u00e9".repeat(10) + "\u0000")
                    .replace("\u00e9", "\\xff")
                    .getBytes(StandardCharsets.ISO_8859_1);
            case 2 -> ("[".repeat(5000) + "]".repeat(5000)).getBytes(StandardCharsets.UTF_8);
            case 3 -> Arrays.copyOf(bytes, Math.max(1, bytes.length - 3));
            case 4 -> ("[" + "{\"ttl\": 60, \"body\": \"" + "z".repeat(300_000) + "\"}]")
                    .getBytes(StandardCharsets.UTF_8);
            default -> bytes;
        };
    }

    private String validBodyFor(String suffix, String version) {
        return switch (suffix) {
            case "/metadata" -> "{\"a\": 1}";
            case "/messages" -> version.equals("v1")
                    ? "[{\"ttl\": 60, \"body\": 1}]"
                    : "{\"messages\": [{\"ttl\": 60, \"body\": 1}]}";
            case "/claims" -> "{\"ttl\": 60, \"grace\": 60}";
            default -> "{}";
        };
    }

    private static String preview(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        return text.length() > 80 ? text.substring(0, 80) + "...(" + body.length + " bytes)" : text;
    }
}
