package io.pigeon.dispatch;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Receiver;
import io.pigeon.testing.Receiver.Answer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The dispatcher under hostile or broken groups: a call that throws while it is built fails alone, a target
 * that trickles its answer is cut at the hard deadline and never called twice at once, and one project's slow
 * targets cannot take every call slot. (Test profile: call-timeout 3 s, so a lease of 8 s; 64 slots, 16 per
 * project.)
 */
@QuarkusTest
class DispatcherResilienceTest {

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    Pool pool;

    private final String project = Api.newProject();

    private static String uniquePath() {
        return "/hook/" + UUID.randomUUID();
    }

    private void push(String project, String mergeKey, String path) {
        given().header("X-Project-Id", project)
                .contentType(ContentType.JSON)
                .body("{\"n\": 1}")
                .post("/v3/queue/" + mergeKey + "/POST/" + receiver.service(path))
                .then()
                .statusCode(201);
    }

    /** Stores a group as no API would accept it today (as a row written before a rule existed may be). */
    private long poison(String target, String method, String headers, String retryPolicy) {
        Row row = Db.run(
                        pool,
                        """
                INSERT INTO dispatch_groups (project, merge_key, method, target, mergeable, envelope, body, headers,
                                             retry_policy, fire_at)
                VALUES ($1, '-poison-' || gen_random_uuid(), $2, $3, false, 'single', '{"poison": true}', $4::jsonb,
                        $5::jsonb, now())
                RETURNING id""",
                        project,
                        method,
                        target,
                        headers,
                        retryPolicy)
                .iterator()
                .next();
        return row.getLong(0);
    }

    @Test
    void aCallThatThrowsWhileBuiltFailsAloneAndOtherProjectsAreStillDelivered() {
        String path = uniquePath();
        List<Long> poisoned = List.of(
                poison("http://bad host/x", "POST", null, null),
                poison(receiver.url(path + "/del"), "POST", "{\"X-Bad\": \"a\u007fb\"}", null),
                poison(receiver.url(path + "/method"), "NOT A METHOD", null, null),
                poison(
                        "http://127.0.0.1:1/closed",
                        "POST",
                        "[1, 2]",
                        "{\"queue\": {\"retries_with_no_delay\": \"many\"}}"));
        String other = Api.newProject();
        push(other, "after-poison", path);
        Eventually.await(
                "the other project's group",
                Duration.ofSeconds(3),
                () -> receiver.calls(path).size() == 1);
        // Each poisoned group had its call and is settled: delivered (gone; the bad header left out), or failed
        // with its lease released (to be retried, or dead). None holds a lease for ever.
        Eventually.await("every poisoned group settled", Duration.ofSeconds(6), () -> poisoned.stream()
                .allMatch(id -> Db.count(
                                pool,
                                "SELECT count(*) FROM dispatch_groups WHERE id = $1 AND (attempts = 0 "
                                        + "OR lease_token IS NOT NULL OR last_error IS NULL)",
                                id)
                        == 0));
        long failed = Db.count(
                pool,
                "SELECT count(*) FROM dispatch_groups WHERE id = ANY($1) AND last_error IN "
                        + "('call failed', 'connection failed')",
                (Object) poisoned.toArray(Long[]::new));
        assertTrue(failed >= 2, "the unbuildable and unreachable groups failed: " + failed);
        // And the dispatcher still plans: a later push is delivered too.
        String later = uniquePath();
        push(other, "later", later);
        Eventually.await(
                "a later group",
                Duration.ofSeconds(3),
                () -> receiver.calls(later).size() == 1);
    }

    @Test
    void headersThatHttpOrPigeonForbidAreRefusedWhenSubscribing() {
        for (String headers : List.of(
                "{\"X-Bad\": \"a\\u007fb\"}",
                "{\"X-Bad\": \"line\\nbreak\"}",
                "{\"X-Bad\": \"caf\\u00e9\"}",
                "{\"Host\": \"kubernetes.default\"}",
                "{\"connection\": \"close\"}",
                "{\"Transfer-Encoding\": \"chunked\"}",
                "{\"Content-Length\": \"1\"}",
                "{\"X-Pigeon-Group\": \"1\"}",
                "{\"x-pigeon-anything\": \"1\"}",
                "{\"bad name\": \"v\"}",
                "{\"X-Number\": 5}")) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"subscriber\": \"" + receiver.url("/s") + "\", \"options\": {\"post_headers\": " + headers
                            + "}}")
                    .post("/v2/queues/headers/subscriptions")
                    .then()
                    .statusCode(400)
                    .contentType("application/json")
                    .body("title", equalTo("Invalid API request"))
                    .body("description", containsString("post_headers"));
        }
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM subscriptions WHERE project = $1", project));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url("/s") + "\", \"options\": {\"post_headers\": "
                        + "{\"X-Token\": \"abc def\\tghi\", \"Content-Type\": \"text/plain\"}}}")
                .post("/v2/queues/headers/subscriptions")
                .then()
                .statusCode(201);
    }

    @Test
    void aTricklingTargetIsCutAtTheDeadlineAndNeverCalledTwiceAtOnce() {
        String path = uniquePath();
        // Sends a byte every half second for 20 s: no idle timeout ever fires.
        receiver.script(path, Answer.trickle(20_000), Answer.status(200));
        long started = System.currentTimeMillis();
        push(project, "trickle", path);
        Eventually.await("the first call cut at the deadline", Duration.ofSeconds(6), () -> "timed out"
                .equals(given().header("X-Project-Id", project)
                        .get("/v3/queue/trickle/POST/" + receiver.service(path))
                        .then()
                        .extract()
                        .jsonPath()
                        .getString("groups[0].last_error")));
        long cut = System.currentTimeMillis() - started;
        assertTrue(cut >= 2_500, "cut after " + cut + " ms, before the 3 s deadline");
        Eventually.await(
                "the retry, delivered",
                Duration.ofSeconds(8),
                () -> receiver.calls(path).size() == 2
                        && given().header("X-Project-Id", project)
                                .get("/v3/queue/trickle/POST/" + receiver.service(path))
                                .then()
                                .extract()
                                .jsonPath()
                                .getList("groups")
                                .isEmpty());
        assertEquals(1, receiver.mostConcurrent(path), "two calls of one group at the same time");
    }

    @Test
    void oneProjectsSlowTargetsCannotTakeEverySlot() {
        String slow = "/slow/" + UUID.randomUUID() + "/";
        for (int i = 0; i < 80; i++) {
            receiver.script(slow + i, Answer.trickle(6_000), Answer.status(200));
        }
        for (int i = 0; i < 80; i++) {
            push(project, "-slow", slow + i);
        }
        Eventually.await(
                "the slow project's calls under way", Duration.ofSeconds(3), () -> receiver.openNow(slow) >= 16);
        String fast = uniquePath();
        String other = Api.newProject();
        long pushed = System.currentTimeMillis();
        push(other, "fast", fast);
        Eventually.await(
                "the other project's group, while the slow calls run",
                Duration.ofSeconds(2),
                () -> receiver.calls(fast).size() == 1);
        assertTrue(System.currentTimeMillis() - pushed < 2_000);
        // Pigeon's own view (the receiver may still count a call that Pigeon has already cut): leases in flight.
        long leased = Db.count(
                pool, "SELECT count(*) FROM dispatch_groups WHERE project = $1 AND lease_until > now()", project);
        assertTrue(leased <= 16, leased + " slow calls at once, over the share of 16");
    }
}
