package io.pigeon.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Slow;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
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
