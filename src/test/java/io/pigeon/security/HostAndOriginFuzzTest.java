package io.pigeon.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.RawHttp;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Seeded spellings of {@code Host} on every protected endpoint, and of {@code Origin} on both socket paths, each known
 * by how it was made to be served (allowed) or not: a served host in any case, with or without its trailing dot and
 * port, is answered by the resource; the same with a label added before or after it names another host (421); with a
 * byte no host holds, it is no host (400). An origin is allowed only when it names Pigeon's own host and port (101);
 * another port, another host, a path, user info, no scheme, {@code null} or nothing are refused (403). No refused
 * request changes what is stored, and none is answered 5xx.
 */
@QuarkusTest
class HostAndOriginFuzzTest {

    private static final long SEED = 20261129L;
    private static final int REQUESTS = 400;
    private static final String NOT_A_HOST_BYTES = "@%/\\\"'(),;!~*+=$&<>{}|^`";

    @Inject
    Pool pool;

    private final String project = Api.newProject();
    private final Random random = new Random(SEED);

    private static int port() {
        return RestAssured.port;
    }

    private enum Kind {
        SERVED,
        OTHER_HOST,
        NOT_A_HOST
    }

    private record Spelling(Kind kind, String text) {}

    private String randomCase(String text) {
        StringBuilder spelled = new StringBuilder();
        for (char c : text.toCharArray()) {
            spelled.append(random.nextBoolean() ? Character.toUpperCase(c) : c);
        }
        return spelled.toString();
    }

    private String label() {
        String letters = "abcdefghijklmnopqrstuvwxyz0123456789-";
        StringBuilder label = new StringBuilder().append((char) ('a' + random.nextInt(26)));
        for (int i = random.nextInt(8); i > 0; i--) {
            label.append(letters.charAt(random.nextInt(letters.length())));
        }
        return label.toString();
    }

    /** A host this Pigeon serves by default, spelled as a client may. */
    private String servedHost() {
        return switch (random.nextInt(4)) {
            case 0 -> randomCase("localhost") + (random.nextBoolean() ? "." : "");
            case 1 -> "127.0.0." + (1 + random.nextInt(254));
            case 2 -> "[::1]";
            default -> "10." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256);
        };
    }

    private String withPort(String host) {
        return random.nextBoolean() ? host + ":" + port() : host;
    }

    private Spelling host() {
        Kind kind = Kind.values()[random.nextInt(3)];
        return switch (kind) {
            case SERVED -> new Spelling(kind, withPort(servedHost()));
            case OTHER_HOST -> {
                String name = randomCase("localhost");
                String other =
                        switch (random.nextInt(4)) {
                            case 0 -> label() + "." + name;
                            case 1 -> name + "." + label() + ".example";
                            case 2 -> name + label();
                            default -> "127.0.0.1." + label();
                        };
                yield new Spelling(kind, withPort(other));
            }
            case NOT_A_HOST -> {
                String host = withPort(servedHost());
                int at = random.nextInt(host.length() + 1);
                char odd = NOT_A_HOST_BYTES.charAt(random.nextInt(NOT_A_HOST_BYTES.length()));
                yield new Spelling(kind, host.substring(0, at) + odd + host.substring(at));
            }
        };
    }

    @Test
    void everyEndpointRefusesEveryOtherHostAndServesItsOwn() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 3600, \"body\": 1}]}")
                .post("/v2/queues/" + Endpoints.QUEUE + "/messages")
                .then()
                .statusCode(201);
        String before = snapshot();
        List<Endpoints.Call> calls = Endpoints.protectedCalls();
        List<String> failures = new ArrayList<>();
        TreeMap<String, Integer> seen = new TreeMap<>();
        for (int n = 0; n < REQUESTS; n++) {
            Endpoints.Call call = calls.get(random.nextInt(calls.size()));
            Spelling host = host();
            // A served host reaches the resource: only reads, so that what is stored stays as it was.
            String method = host.kind() == Kind.SERVED ? "GET" : call.method();
            StringBuilder head = new StringBuilder(method)
                    .append(' ')
                    .append(call.path())
                    .append(" HTTP/1.1\r\nHost: ")
                    .append(host.text())
                    .append("\r\nX-Project-Id: ")
                    .append(project)
                    .append("\r\nClient-ID: ")
                    .append(Api.CLIENT_ID)
                    .append("\r\nConnection: close\r\n");
            String body = call.body() == null || method.equals("GET") ? "" : call.body();
            if (!method.equals("GET")) {
                head.append("Content-Type: application/json\r\nContent-Length: ")
                        .append(body.length())
                        .append("\r\n");
            }
            RawHttp.Answer answer =
                    RawHttp.exchange(port(), head.append("\r\n").append(body).toString());
            seen.merge(host.kind() + " " + answer.status(), 1, Integer::sum);
            String what = host.kind() + " Host '" + host.text() + "' " + method + " " + call.path() + " -> " + answer;
            boolean ok =
                    switch (host.kind()) {
                        case SERVED -> answer.status() < 500
                                && answer.status() != 421
                                && !answer.body().contains("is not a host name");
                        case OTHER_HOST -> answer.status() == 421 && answer.isErrorDocument();
                        case NOT_A_HOST -> answer.status() == 400
                                && (answer.isErrorDocument() || HeaderBytesFuzz.isHttpLayerRefusal(answer));
                    };
            if (!ok) {
                failures.add(what);
            }
        }
        System.out.println("Host fuzz: " + REQUESTS + " requests, answers by kind and status: " + seen);
        assertTrue(
                failures.isEmpty(),
                failures.size() + " bad answers, e.g.:\n"
                        + String.join("\n", failures.subList(0, Math.min(15, failures.size()))));
        assertEquals(before, snapshot(), "stored data changed");
    }

    @Test
    void aSocketOpensOnlyFromPigeonsOwnOriginInAnySpelling() {
        String host = "localhost:" + port();
        List<String> failures = new ArrayList<>();
        for (int n = 0; n < REQUESTS / 2; n++) {
            String scheme = randomCase(List.of("http", "https", "ws", "wss").get(random.nextInt(4)));
            String name = randomCase("localhost") + (random.nextInt(4) == 0 ? "." : "");
            boolean allowed = random.nextBoolean();
            String origin;
            if (allowed) {
                origin = scheme + "://" + name + ":" + port();
            } else {
                origin = switch (random.nextInt(9)) {
                    case 0 -> scheme + "://" + name + ":" + (port() + 1 + random.nextInt(1000));
                    case 1 -> scheme + "://" + name;
                    case 2 -> scheme + "://" + label() + "." + name + ":" + port();
                    case 3 -> scheme + "://" + name + "." + label() + ".example:" + port();
                    case 4 -> scheme + "://" + name + ":" + port() + "/" + (random.nextBoolean() ? "" : label());
                    case 5 -> scheme + "://" + label() + "@" + name + ":" + port();
                    case 6 -> name + ":" + port();
                    case 7 -> randomCase("null");
                    default -> "";
                };
            }
            String path = random.nextBoolean() ? "/" : "/v2";
            RawHttp.Answer answer = RawHttp.exchange(
                    port(),
                    "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + RawHttp.UPGRADE_HEADERS + "Origin: "
                            + origin + "\r\nX-Project-Id: " + project + "\r\n\r\n");
            boolean ok = allowed ? answer.status() == 101 : answer.status() == 403 && answer.isErrorDocument();
            if (!ok) {
                failures.add(
                        (allowed ? "allowed" : "refused") + " Origin '" + origin + "' at " + path + " -> " + answer);
            }
        }
        assertTrue(
                failures.isEmpty(),
                failures.size() + " bad answers, e.g.:\n"
                        + String.join("\n", failures.subList(0, Math.min(15, failures.size()))));
    }

    private String snapshot() {
        StringBuilder rows = new StringBuilder();
        Db.run(
                        pool,
                        "SELECT q.name, q.metadata::text, m.id, m.body, m.claim_id FROM queues q"
                                + " LEFT JOIN messages m ON m.queue_id = q.id WHERE q.project = $1 ORDER BY q.name, m.id",
                        project)
                .forEach(row -> rows.append(row.toJson()).append('\n'));
        Db.run(
                        pool,
                        "SELECT merge_key, subscriber FROM dispatch_groups g FULL JOIN subscriptions s ON false "
                                + "WHERE g.project = $1 OR s.project = $1",
                        project)
                .forEach(row -> rows.append(row.toJson()).append('\n'));
        return rows.toString().toLowerCase(Locale.ROOT);
    }
}
