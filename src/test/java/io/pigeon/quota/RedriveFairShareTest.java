package io.pigeon.quota;

import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One project cannot take every redrive place of a replica: with 2 places and 1 per project here
 * (pigeon.redrive.max-running-per-replica, max-running-per-project-per-replica), a project that starts two slow tasks
 * runs one, and another project's task, started after them, runs at once and ends while the first project's still run.
 * Without the share the two slow tasks held both places, and the other task could start only once one of them had
 * ended: the check that both still run when it is done fails then, however fast or slow the machine is.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
class RedriveFairShareTest {

    private static void post(String project, String queue, int count) {
        StringBuilder batch = new StringBuilder("{\"messages\": [");
        for (int i = 0; i < count; i++) {
            batch.append(i == 0 ? "" : ",")
                    .append("{\"ttl\": 600, \"body\": ")
                    .append(i)
                    .append('}');
        }
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(batch.append("]}").toString())
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    private static String start(String project, String queue, String target, int rate) {
        // A project holds 3 queues here: both slow tasks share one target.
        Api.as(project).put("/v2/queues/" + target);
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"rate\": " + rate + ", \"target\": \"" + target + "\"}")
                .post("/v2/queues/" + queue + "/redrive")
                .then()
                .statusCode(201)
                .extract()
                .header("Location");
    }

    @Test
    void anotherProjectsTaskRunsWhileOneProjectsTasksFillTheirShare() {
        String busy = Api.newProject();
        String other = Api.newProject();
        List<String> slow = new ArrayList<>();
        for (String queue : List.of("slow-a", "slow-b")) {
            // Five each, a project's queue holds no more here: at one a second, each task runs for five seconds.
            post(busy, queue, 5);
            slow.add(start(busy, queue, "slow-back", 1));
        }
        post(other, "quick", 3);
        String quick = start(other, "quick", "quick-back", 10);
        try {
            Eventually.await("the other project's task ended", Duration.ofSeconds(10), () -> !"running"
                    .equals(Api.as(other).get(quick).jsonPath().getString("state")));
            JsonPath ended = Api.as(other).get(quick).jsonPath();
            assertEquals("done", ended.getString("state"));
            assertEquals(3, ended.getLong("moved"));
            Api.as(other).get("/v2/queues/quick-back/stats").then().body("messages.total", equalTo(3));
            // The busy project's tasks have not ended meanwhile: they still held its places.
            for (String href : slow) {
                Api.as(busy).get(href).then().statusCode(200).body("state", equalTo("running"));
            }
        } finally {
            for (String href : slow) {
                Api.as(busy).delete(href).then().statusCode(204);
            }
        }
    }
}
