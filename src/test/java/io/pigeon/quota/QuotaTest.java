package io.pigeon.quota;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * Per-project quotas: past a limit the answer is 403 (a count the caller must lower) or 429 (a backlog that
 * drains), with the error document naming the limit and its setting, and nothing is stored.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
class QuotaTest {

    @Inject
    Pool pool;

    @Inject
    UsageCheck usage;

    @Inject
    Sweeper sweeper;

    private final String project = Api.newProject();

    private static void refused(ValidatableResponse response, int status, String setting) {
        response.statusCode(status)
                .contentType("application/json")
                .body("title", equalTo("Quota exceeded"))
                .body("description", containsString(setting));
        if (status == 429) {
            response.header("Retry-After", "30");
        }
    }

    private ValidatableResponse postV2(String queue, int messages) {
        StringBuilder document = new StringBuilder("{\"messages\": [");
        for (int i = 0; i < messages; i++) {
            document.append(i == 0 ? "" : ",").append("{\"ttl\": 300, \"body\": ").append(i).append('}');
        }
        return Api.as(project).contentType(ContentType.JSON).body(document.append("]}").toString())
                .post("/v2/queues/" + queue + "/messages").then();
    }

    /** Runs the usage check; again when the scheduled one held its lock at that moment and this one did nothing. */
    private void checkUsage() {
        Eventually.await("a usage check that ran", Duration.ofSeconds(5), () -> usage.check().await().indefinitely() >= 0);
    }

    private long count(String sql) {
        return Db.count(pool, sql, project);
    }

    @Test
    void queuesPerProject() {
        Api.as(project).put("/v1/queues/a").then().statusCode(201);
        Api.as(project).contentType(ContentType.JSON).body("{}").put("/v2/queues/b").then().statusCode(201);
        postV2("c", 1).statusCode(201);
        refused(Api.as(project).put("/v1/queues/d").then(), 403, "pigeon.quotas.max-queues-per-project");
        refused(Api.as(project).contentType(ContentType.JSON).body("{\"k\": 1}").put("/v2/queues/d").then(), 403,
                "pigeon.quotas.max-queues-per-project");
        refused(postV2("d", 1), 403, "pigeon.quotas.max-queues-per-project");
        assertEquals(3, count("SELECT count(*) FROM queues WHERE project = $1"));
        assertEquals(1, count("SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1"));
        // What exists stays usable, and a deleted queue makes room.
        Api.as(project).put("/v1/queues/a").then().statusCode(204);
        postV2("c", 1).statusCode(201);
        Api.as(project).delete("/v1/queues/a").then().statusCode(204);
        Api.as(project).put("/v1/queues/d").then().statusCode(201);
    }

    @Test
    void messagesPerQueueOnceCounted() {
        postV2("full", 6).statusCode(201);
        checkUsage();
        refused(postV2("full", 1), 429, "pigeon.quotas.max-messages-per-queue");
        refused(Api.as(project).contentType(ContentType.JSON).body("[{\"ttl\": 300, \"body\": 1}]")
                .post("/v1/queues/full/messages").then(), 429, "pigeon.quotas.max-messages-per-queue");
        assertEquals(6, count("SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1"));
        // Another queue of the project is not affected; a drained queue takes posts again after the next count.
        postV2("other", 1).statusCode(201);
        Api.as(project).delete("/v2/queues/full/messages?pop=4").then().statusCode(200);
        checkUsage();
        postV2("full", 1).statusCode(201);
    }

    @Test
    void subscriptionsPerQueue() {
        for (int i = 0; i < 2; i++) {
            Api.as(project).contentType(ContentType.JSON).body("{\"subscriber\": \"mailto:s" + i + "@example.com\"}")
                    .post("/v2/queues/q/subscriptions").then().statusCode(201);
        }
        refused(Api.as(project).contentType(ContentType.JSON).body("{\"subscriber\": \"mailto:s2@example.com\"}")
                .post("/v2/queues/q/subscriptions").then(), 403, "pigeon.quotas.max-subscriptions-per-queue");
        assertEquals(2, count("SELECT count(*) FROM subscriptions WHERE project = $1"));
        // Another queue has its own allowance.
        Api.as(project).contentType(ContentType.JSON).body("{\"subscriber\": \"mailto:s2@example.com\"}")
                .post("/v2/queues/q2/subscriptions").then().statusCode(201);
    }

    @Test
    void notificationsPerPost() {
        for (int i = 0; i < 2; i++) {
            Api.as(project).contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"http://127.0.0.1:9/hook" + i + "\"}")
                    .post("/v2/queues/fan/subscriptions").then().statusCode(201);
        }
        // 3 messages x 2 webhooks = 6 notifications, over the 4 one post may queue.
        refused(postV2("fan", 3), 429, "pigeon.quotas.max-notifications-per-post");
        assertEquals(0, count("SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1"));
        assertEquals(0, count("SELECT count(*) FROM dispatch_groups WHERE project = $1"));
        postV2("fan", 2).statusCode(201);
        assertEquals(4, count("SELECT count(*) FROM dispatch_groups WHERE project = $1"));
    }

    @Test
    void pendingDeliveriesPerProjectOnceCounted() {
        String service = Base64.getUrlEncoder().withoutPadding()
                .encodeToString("http://127.0.0.1:9/later".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 4; i++) {
            given().header("X-Project-Id", project).contentType(ContentType.JSON).body("{\"n\": 1}")
                    .post("/v3/queue/-k" + i + "/POST/" + service + "?ontime=253402300799").then().statusCode(201);
        }
        checkUsage();
        refused(given().header("X-Project-Id", project).contentType(ContentType.JSON).body("{\"n\": 1}")
                .post("/v3/queue/-k9/POST/" + service + "?ontime=253402300799").then(), 429,
                "pigeon.quotas.max-pending-groups-per-project");
        assertEquals(4, count("SELECT count(*) FROM dispatch_groups WHERE project = $1"));
        // A post that would queue notifications is refused too; one that would not is not.
        Api.as(project).contentType(ContentType.JSON).body("{\"subscriber\": \"http://127.0.0.1:9/hook\"}")
                .post("/v2/queues/hooked/subscriptions").then().statusCode(201);
        refused(postV2("hooked", 1), 429, "pigeon.quotas.max-pending-groups-per-project");
        postV2("quiet", 1).statusCode(201);
    }

    @Test
    void deadGroupsAreDeletedAfterTheirRetention() {
        Db.run(pool, """
                INSERT INTO dispatch_groups (project, merge_key, method, target, mergeable, envelope, body, state, fire_at,
                                             dead_at)
                VALUES ($1, '-old', 'POST', 'http://127.0.0.1:9/x', false, 'single', '{}', 'dead', now(),
                        now() - interval '8 days'),
                       ($1, '-recent', 'POST', 'http://127.0.0.1:9/x', false, 'single', '{}', 'dead', now(),
                        now() - interval '6 days')""", project);
        sweeper.sweep().await().indefinitely();
        assertEquals(1, count("SELECT count(*) FROM dispatch_groups WHERE project = $1 AND merge_key = '-recent'"));
        assertEquals(0, count("SELECT count(*) FROM dispatch_groups WHERE project = $1 AND merge_key = '-old'"));
    }
}
