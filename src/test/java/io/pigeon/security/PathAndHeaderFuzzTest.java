package io.pigeon.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.RawHttp;
import io.pigeon.testing.Slow;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The path-spelling and header-byte fuzz with authentication off (X-Project-Id trusted). */
@QuarkusTest
class PathAndHeaderFuzzTest {

    private static final long SEED = 20261123L;
    private static final int REQUESTS = 700;

    @Inject
    Pool pool;

    private final String project = Api.newProject();

    /** A request the router refuses before any resource (no Host) is answered with the error document too. */
    @Test
    void aRequestWithoutAHostIsRefusedWithTheErrorDocument() throws Exception {
        for (String head : List.of(
                "GET /v1/health HTTP/1.1\r\nConnection: close\r\n\r\n",
                "PUT /v2/queues/hostless HTTP/1.1\r\nX-Project-Id: " + project + "\r\nClient-ID: " + Api.CLIENT_ID
                        + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")) {
            try (Socket socket = new Socket("localhost", RestAssured.port)) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
                String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(answer.startsWith("HTTP/1.1 400"), head + " -> " + answer);
                assertTrue(answer.contains("\"title\"") && answer.contains("Host header"), head + " -> " + answer);
            }
        }
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM queues WHERE project = $1", project));
    }

    /**
     * A websocket upgrade in every spelling of the two socket paths and of every GET endpoint, with the project's
     * headers plain and with odd bytes: it is taken (101) only where the spelling normalises to {@code /} or
     * {@code /v2} (and always at {@code /}, {@code /v2} and {@code /v2/}); anything else is an ordinary answer (never
     * 5xx, a refusal with the error document); nothing stored changes.
     */
    @Test
    void aWebsocketUpgradeIsTakenOnlyAtTheSocketPathsInAnySpelling() {
        String before = snapshot();
        List<String> paths = new ArrayList<>(List.of("/", "/v2", "/v1", "/v1.1", "/v2/queues"));
        Endpoints.protectedCalls().stream()
                .filter(call -> call.method().equals("GET"))
                .forEach(call -> paths.add(call.path()));
        List<String> failures = new ArrayList<>();
        int upgraded = 0;
        int sent = 0;
        for (String path : paths) {
            List<String> spellings = new ArrayList<>(Endpoints.spellings(path));
            spellings.addAll(List.of(path + ";x", path + "%2f", path + "/..", path + "/%2e%2e/v2"));
            for (String spelled : spellings) {
                for (String projectHeader : List.of(project, project + "\u0001\u00ff")) {
                    RawHttp.Answer answer = RawHttp.upgrade(
                            RestAssured.port,
                            spelled,
                            Map.of("X-Project-Id", projectHeader, "Client-ID", Api.CLIENT_ID));
                    sent++;
                    // Control bytes in a header value: the HTTP layer itself refuses the request (plain 400).
                    boolean socketPath =
                            projectHeader.equals(project) && Set.of("/", "/v2").contains(normalised(spelled));
                    if (answer.status() == 101) {
                        upgraded++;
                    }
                    boolean canonical = projectHeader.equals(project)
                            && Set.of("/", "/v2", "/v2/").contains(spelled);
                    if (answer.status() == 101 ? !socketPath : canonical) {
                        failures.add(spelled + " -> " + answer.status() + (canonical ? ", expected 101" : ""));
                    } else if (answer.status() >= 500
                            || (projectHeader.equals(project)
                                    && answer.status() >= 400
                                    && answer.status() != 404
                                    && !answer.isErrorDocument()
                                    && !HeaderBytesFuzz.isHttpLayerRefusal(answer))) {
                        failures.add(spelled + " -> " + answer);
                    }
                }
            }
        }
        System.out.println("Upgrade spellings: " + sent + " requests, " + upgraded + " upgraded");
        assertTrue(
                failures.isEmpty(),
                failures.size() + " of " + sent + " upgrades answered wrongly:\n"
                        + String.join("\n", failures.subList(0, Math.min(30, failures.size()))));
        assertEquals(before, snapshot(), "stored data changed");
    }

    /**
     * The path a router takes a raw spelling for: unreserved letters decoded, dot segments resolved, slashes
     * collapsed, a trailing slash dropped; {@code ;} and encoded slashes stay (they name no socket path).
     */
    private static String normalised(String raw) {
        String decoded =
                raw.replace("%76", "v").replace("%56", "V").replace("%2e", ".").replace("%2E", ".");
        Deque<String> segments = new ArrayDeque<>();
        for (String segment : decoded.split("/")) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                segments.pollLast();
            } else {
                segments.addLast(segment);
            }
        }
        return "/" + String.join("/", segments);
    }

    @Test
    @Slow
    void oddPathsAndHeaderBytesAreRefusedCleanlyAndChangeNothing() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 3600, \"body\": 1}]}")
                .post("/v2/queues/" + Endpoints.QUEUE + "/messages")
                .then()
                .statusCode(201);
        String before = snapshot();
        Map<Integer, Integer> statuses = HeaderBytesFuzz.statuses();
        List<HeaderBytesFuzz.Probe> probes =
                new HeaderBytesFuzz(SEED, RestAssured.port).run(REQUESTS, project, Api.CLIENT_ID, null);
        List<String> failures = HeaderBytesFuzz.failures(probes, statuses);
        System.out.println("Path and header fuzz (auth off): " + REQUESTS + " requests, answers by status: " + statuses
                + ", refused by the HTTP layer itself: " + HeaderBytesFuzz.httpLayerRefusals(probes));
        assertTrue(
                failures.isEmpty(),
                failures.size() + " bad answers, e.g.:\n"
                        + String.join("\n", failures.subList(0, Math.min(15, failures.size()))));
        assertEquals(before, snapshot(), "stored data changed");
    }

    private String snapshot() {
        StringBuilder rows = new StringBuilder();
        Db.run(
                        pool,
                        """
                SELECT q.name, q.metadata::text, m.id, m.body, m.claim_id FROM queues q LEFT JOIN messages m ON m.queue_id = q.id
                WHERE q.project LIKE $1 ORDER BY q.name, m.id""",
                        project + "%")
                .forEach(row -> rows.append(row.toJson()).append('\n'));
        Db.run(
                        pool,
                        "SELECT merge_key, subscriber FROM dispatch_groups g FULL JOIN subscriptions s ON false "
                                + "WHERE g.project LIKE $1 OR s.project LIKE $1",
                        project + "%")
                .forEach(row -> rows.append(row.toJson()).append('\n'));
        return rows.toString();
    }
}
