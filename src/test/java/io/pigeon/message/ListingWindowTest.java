package io.pigeon.message;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A listing steps over at most {@link MessageStore#LIST_WINDOW} rows per request: a client listing without echo
 * behind thousands of its own messages gets short (here empty) pages whose next links lead on, never a scan of them all.
 */
@QuarkusTest
class ListingWindowTest {

    private static final String OTHER_CLIENT = "7be7a3c0-2b9e-11e3-b191-71861300734c";

    @Inject
    Pool pool;

    private final String project = Api.newProject();

    @Test
    void aClientBehindItsOwnMessagesIsLedOnPageByPage() {
        Api.as(project)
                .contentType("application/json")
                .body("{}")
                .put("/v2/queues/busy")
                .then()
                .statusCode(201);
        // 2,500 messages of the listing client, straight into the table, then 3 of another client.
        Db.run(
                pool,
                """
                INSERT INTO messages (queue_id, client_id, ttl, body, expires_at)
                SELECT q.id, $3::uuid, 3600, '{"own": ' || n || '}', now() + interval '1 hour'
                FROM queues q, generate_series(1, 2500) AS n WHERE q.project = $1 AND q.name = $2""",
                project,
                "busy",
                Api.CLIENT_ID);
        Api.as(project, OTHER_CLIENT)
                .contentType("application/json")
                .body("{\"messages\": [{\"body\": 1}, {\"body\": 2}, {\"body\": 3}]}")
                .post("/v2/queues/busy/messages")
                .then()
                .statusCode(201);

        List<Integer> pageSizes = new ArrayList<>();
        List<Object> bodies = new ArrayList<>();
        String next = "/v2/queues/busy/messages?limit=5";
        while (next != null) {
            Response page = Api.as(project).get(next);
            page.then().statusCode(200);
            List<Object> shown = page.path("messages.body");
            pageSizes.add(shown.size());
            bodies.addAll(shown);
            List<String> links = page.path("links.href");
            next = links.isEmpty() ? null : links.get(0);
            if (pageSizes.size() > 10) {
                throw new AssertionError("more pages than the windows need: " + pageSizes);
            }
        }
        // Three windows of 1,000 rows (the third reaches the others' messages and the end), then the end.
        assertEquals(List.of(0, 0, 3, 0), pageSizes);
        assertEquals(List.of(1, 2, 3), bodies);

        // v1 answers such an empty page 200 with its link (its end stays 204).
        Response first = Api.as(project).get("/v1/queues/busy/messages?limit=5");
        first.then().statusCode(200).body("messages", empty()).body("links", hasSize(1));
        Api.as(project)
                .get("/v2/queues/busy/messages?limit=5&echo=true")
                .then()
                .statusCode(200)
                .body("messages.body.own", contains(1, 2, 3, 4, 5));
    }
}
