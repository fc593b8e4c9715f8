package io.pigeon.queuemetrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * pigeon_queue_groups_blocked as a scraper sees it: on a fifo queue, the groups whose messages live claims hold, while
 * the claims of parallel consumers live, and 0 once their messages are deleted; no such series for a queue of another
 * ordering, whose groups never block.
 */
@QuarkusTest
class BlockedGroupsMetricsTest {

    /** Longer than a sample period plus a sample, on a loaded machine. */
    private static final Duration SETTLED = Duration.ofSeconds(20);

    private static final String BLOCKED = "pigeon_queue_groups_blocked";
    private static final int GROUPS = 24;
    private static final int CONSUMERS = 8;

    private final String project = Api.newProject();

    @Test
    void theGroupsThatParallelClaimsHoldAreCountedUntilTheirMessagesAreDeleted() throws Exception {
        String queue = "fifo-" + System.nanoTime();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_ordering\": \"fifo\"}")
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
        // Three messages in each group, the groups interleaved, so that each claim finds every group eligible.
        for (int round = 0; round < 3; round++) {
            StringBuilder messages = new StringBuilder();
            for (int g = 0; g < GROUPS; g++) {
                messages.append(g == 0 ? "" : ", ")
                        .append("{\"ttl\": 300, \"group\": \"g")
                        .append(g)
                        .append("\", \"body\": \"g")
                        .append(g)
                        .append("\"}");
            }
            post(queue, messages.toString(), GROUPS);
        }

        // Eight consumers claim at once, two messages each: a fifo claim takes a group's messages in order and no two
        // live claims hold one group, so each claim holds its own groups; the count must be the groups held.
        ExecutorService consumers = Executors.newFixedThreadPool(CONSUMERS);
        List<Response> claims = new ArrayList<>();
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Response>> claimed = new ArrayList<>();
            for (int i = 0; i < CONSUMERS; i++) {
                claimed.add(consumers.submit(() -> {
                    start.await();
                    return Api.as(project)
                            .contentType(ContentType.JSON)
                            .body("{\"ttl\": 300, \"grace\": 60}")
                            .post("/v2/queues/" + queue + "/claims?limit=2");
                }));
            }
            start.countDown();
            for (Future<Response> one : claimed) {
                claims.add(one.get(60, TimeUnit.SECONDS));
            }
        } finally {
            consumers.shutdownNow();
        }
        Set<String> held = new HashSet<>();
        List<String> hrefs = new ArrayList<>();
        for (Response claim : claims) {
            assertEquals(201, claim.statusCode(), claim.asString());
            Set<String> ofThisClaim = new HashSet<>(claim.jsonPath().getList("messages.body", String.class));
            for (String group : ofThisClaim) {
                assertTrue(held.add(group), "two live claims hold group " + group);
            }
            hrefs.addAll(claim.jsonPath().getList("messages.href", String.class));
        }
        assertTrue(held.size() >= CONSUMERS, "the claims hold " + held);

        settled("the claimed groups are counted", queue, (double) held.size());

        for (String href : hrefs) {
            Api.as(project).delete(href).then().statusCode(204);
        }
        settled("no group is blocked once the claimed messages are deleted", queue, 0.0);
    }

    @Test
    void aQueueOfAnotherOrderingHasNoBlockedGroupsSeries() {
        for (String ordering : List.of("none", "fair")) {
            String queue = ordering + "-" + System.nanoTime();
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"_ordering\": \"" + ordering + "\"}")
                    .put("/v2/queues/" + queue)
                    .then()
                    .statusCode(201);
            post(
                    queue,
                    "{\"ttl\": 300, \"group\": \"a\", \"body\": 1}, {\"ttl\": 300, \"group\": \"b\", \"body\": 2}",
                    2);
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"ttl\": 300, \"grace\": 60}")
                    .post("/v2/queues/" + queue + "/claims?limit=2")
                    .then()
                    .statusCode(201);
            QueueSeriesScrape scrape = scrapeUntil("the claimed messages are sampled", queue, s -> Double.valueOf(2)
                    .equals(s.messages(project, queue, "claimed")));
            assertNull(scrape.queue(BLOCKED, project, queue), scrape.text());
        }
    }

    private void post(String queue, String messages, int count) {
        Response posted = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [" + messages + "]}")
                .post("/v2/queues/" + queue + "/messages");
        posted.then().statusCode(201);
        assertEquals(count, posted.jsonPath().getList("resources").size());
    }

    private void settled(String what, String queue, double blocked) {
        scrapeUntil(what, queue, scrape -> Double.valueOf(blocked).equals(scrape.queue(BLOCKED, project, queue)));
    }

    private QueueSeriesScrape scrapeUntil(String what, String queue, Predicate<QueueSeriesScrape> seen) {
        List<QueueSeriesScrape> last = new ArrayList<>(List.of(scrape(queue)));
        try {
            Eventually.await(what, SETTLED, () -> {
                last.set(0, scrape(queue));
                return seen.test(last.get(0));
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + last.get(0).text(), e);
        }
        return last.get(0);
    }

    private QueueSeriesScrape scrape(String queue) {
        return QueueSeriesScrape.of("?project=" + project + "&queue=" + queue);
    }
}
