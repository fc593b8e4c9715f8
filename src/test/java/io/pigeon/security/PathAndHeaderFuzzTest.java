package io.pigeon.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
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

    @Test
    void oddPathsAndHeaderBytesAreRefusedCleanlyAndChangeNothing() {
        Api.as(project).contentType(ContentType.JSON).body("{\"messages\": [{\"ttl\": 3600, \"body\": 1}]}")
                .post("/v2/queues/" + Endpoints.QUEUE + "/messages").then().statusCode(201);
        String before = snapshot();
        Map<Integer, Integer> statuses = HeaderBytesFuzz.statuses();
        List<HeaderBytesFuzz.Probe> probes = new HeaderBytesFuzz(SEED, RestAssured.port)
                .run(REQUESTS, project, Api.CLIENT_ID, null);
        List<String> failures = HeaderBytesFuzz.failures(probes, statuses);
        System.out.println("Path and header fuzz (auth off): " + REQUESTS + " requests, answers by status: " + statuses
                + ", refused by the HTTP layer itself: " + HeaderBytesFuzz.httpLayerRefusals(probes));
        assertTrue(failures.isEmpty(), failures.size() + " bad answers, e.g.:\n"
                + String.join("\n", failures.subList(0, Math.min(15, failures.size()))));
        assertEquals(before, snapshot(), "stored data changed");
    }

    private String snapshot() {
        StringBuilder rows = new StringBuilder();
        Db.run(pool, """
                SELECT q.name, q.metadata::text, m.id, m.body, m.claim_id FROM queues q LEFT JOIN messages m ON m.queue_id = q.id
                WHERE q.project LIKE $1 ORDER BY q.name, m.id""", project + "%").forEach(row -> rows.append(row.toJson()).append('\n'));
        Db.run(pool, "SELECT merge_key, subscriber FROM dispatch_groups g FULL JOIN subscriptions s ON false "
                + "WHERE g.project LIKE $1 OR s.project LIKE $1", project + "%").forEach(row -> rows.append(row.toJson()).append('\n'));
        return rows.toString();
    }
}
