package io.pigeon.queuemetrics;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.pool.PoolClients;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.DispatchClock;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Receiver;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * /q/metrics/queues as a scraper sees it: each queue's sample and totals, exact once the queue has been quiet for a
 * sample period (a second in tests), filtered, escaped, and bounded; and /q/metrics unchanged by the number of queues.
 */
@QuarkusTest
class QueueMetricsEndpointTest {

    /** Longer than a sample period plus a flush and a sample, on a loaded machine. */
    private static final Duration SETTLED = Duration.ofSeconds(15);

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    @Inject
    PoolClients pools;

    private final String project = Api.newProject();

    private void post(String queue, String messages) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [" + messages + "]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    private Response claim(String queue, int limit) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/" + queue + "/claims?limit=" + limit);
    }

    /** Scrapes until {@code settled} holds, and answers that scrape; fails with the last one when it never does. */
    private static QueueSeriesScrape settled(String query, Predicate<QueueSeriesScrape> settled) {
        return settled(query, request -> request, settled);
    }

    private static QueueSeriesScrape settled(
            String query, UnaryOperator<RequestSpecification> as, Predicate<QueueSeriesScrape> settled) {
        List<QueueSeriesScrape> last = new ArrayList<>(List.of(QueueSeriesScrape.of(query, as)));
        try {
            Eventually.await("the series settle", SETTLED, () -> {
                last.set(0, QueueSeriesScrape.of(query, as));
                return settled.test(last.get(0));
            });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\n" + last.get(0).text(), e);
        }
        return last.get(0);
    }

    private static Map<String, Double> of(QueueSeriesScrape scrape, String project, String queue) {
        return scrape.samples().entrySet().stream()
                .filter(e -> e.getKey().contains("{project=\"" + project + "\",queue=\"" + queue + "\""))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    }

    @Test
    void eachQueueIsSampledAndCountedAsItsClientsLeftIt() {
        // jobs: 7 posted (2 of them delayed), 2 claimed, one of those deleted with its claim, one popped.
        post("jobs", "{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}, {\"ttl\": 300, \"body\": 3}");
        post("jobs", "{\"ttl\": 300, \"body\": 4}, {\"ttl\": 300, \"body\": 5}");
        post("jobs", "{\"ttl\": 300, \"delay\": 600, \"body\": 6}, {\"ttl\": 300, \"delay\": 600, \"body\": 7}");
        Response claimed = claim("jobs", 2);
        claimed.then().statusCode(201);
        Api.as(project)
                .delete(claimed.jsonPath().getString("messages[0].href"))
                .then()
                .statusCode(204);
        Api.as(project).delete("/v2/queues/jobs/messages?pop=1").then().statusCode(200);
        // idle: made empty; two claims find nothing. A claim on a queue that does not exist counts nowhere.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/queues/idle")
                .then()
                .statusCode(201);
        claim("idle", 5).then().statusCode(204);
        claim("idle", 5).then().statusCode(204);
        claim("ghost", 5).then().statusCode(204);

        QueueSeriesScrape scrape = settled(
                "?project=" + project,
                s -> Double.valueOf(2).equals(s.messages(project, "jobs", "ready"))
                        && Double.valueOf(0).equals(s.messages(project, "idle", "ready"))
                        && Double.valueOf(2).equals(s.queue("pigeon_queue_claims_empty_total", project, "idle"))
                        && Double.valueOf(2).equals(s.queue("pigeon_queue_messages_deleted_total", project, "jobs")));

        assertEquals(
                Map.ofEntries(
                        Map.entry(series("pigeon_queue_messages", "jobs", "state=\"ready\""), 2.0),
                        Map.entry(series("pigeon_queue_messages", "jobs", "state=\"claimed\""), 1.0),
                        Map.entry(series("pigeon_queue_messages", "jobs", "state=\"delayed\""), 2.0),
                        Map.entry(series("pigeon_queue_messages_posted_total", "jobs", null), 7.0),
                        Map.entry(series("pigeon_queue_messages_claimed_total", "jobs", null), 2.0),
                        Map.entry(series("pigeon_queue_messages_deleted_total", "jobs", null), 2.0),
                        Map.entry(series("pigeon_queue_claims_empty_total", "jobs", null), 0.0),
                        Map.entry(series("pigeon_queue_messages_dead_lettered_total", "jobs", null), 0.0),
                        Map.entry(series("pigeon_queue_notifications_total", "jobs", "outcome=\"delivered\""), 0.0),
                        Map.entry(series("pigeon_queue_notifications_total", "jobs", "outcome=\"failed\""), 0.0)),
                withoutAge(of(scrape, project, "jobs")));
        double age = scrape.queue("pigeon_queue_oldest_ready_age_seconds", project, "jobs");
        assertTrue(age >= 0 && age < 60, "the oldest ready message is seconds old: " + age);
        assertEquals(0.0, scrape.messages(project, "idle", "ready"));
        assertEquals(0.0, scrape.queue("pigeon_queue_oldest_ready_age_seconds", project, "idle"));
        assertEquals(2.0, scrape.queue("pigeon_queue_claims_empty_total", project, "idle"));
        assertNull(scrape.queue("pigeon_queue_messages_posted_total", project, "ghost"), "no such queue");
        assertEquals(2, scrape.queues());
        assertTrue(scrape.text().contains("pigeon_queue_series_truncated 0\n"), scrape.text());
        assertTrue(scrape.text().contains("pigeon_queue_databases_unreadable 0\n"), scrape.text());
    }

    private String series(String name, String queue, String extra) {
        return name + "{project=\"" + project + "\",queue=\"" + queue + "\"" + (extra == null ? "" : "," + extra) + "}";
    }

    private static Map<String, Double> withoutAge(Map<String, Double> series) {
        series.keySet().removeIf(key -> key.startsWith("pigeon_queue_oldest_ready_age_seconds"));
        return series;
    }

    @Test
    void deadLetterMovesAndNotificationCallsCountForTheirQueue() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_max_claim_count\": 1, \"_dead_letter_queue\": \"dead\"}")
                .put("/v2/queues/work")
                .then()
                .statusCode(201);
        String path = "/hook-" + UUID.randomUUID();
        receiver.script(path, Receiver.Answer.status(500), Receiver.Answer.status(200));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url(path) + "\", \"ttl\": 3600}")
                .post("/v2/queues/work/subscriptions")
                .then()
                .statusCode(201);
        post("work", "{\"ttl\": 300, \"body\": \"poison\"}, {\"ttl\": 300, \"body\": \"fine\"}");
        Response claimed = claim("work", 2);
        claimed.then().statusCode(201);
        UUID claimId = UUID.fromString(
                claimed.header("Location").substring(claimed.header("Location").lastIndexOf('/') + 1));
        Db.run(pool, "UPDATE claims SET expires_at = now() - interval '1 second' WHERE id = $1", claimId);
        Db.run(pool, "UPDATE messages SET claim_expires_at = now() - interval '1 second' WHERE claim_id = $1", claimId);
        sweeper.sweep().await().indefinitely();
        // Two notifications: the target's first answer is 500, every later one 200, so one call fails and is retried.
        try (DispatchClock hurried = DispatchClock.hurry(pools, project)) {
            Eventually.await("three calls", SETTLED, () -> receiver.calls(path).size() >= 3);
        }

        QueueSeriesScrape scrape = settled(
                "?project=" + project + "&queue=work&queue=dead",
                s -> Double.valueOf(2).equals(s.queue("pigeon_queue_messages_dead_lettered_total", project, "work"))
                        && Double.valueOf(2).equals(s.messages(project, "dead", "ready"))
                        && Double.valueOf(2)
                                .equals(s.queue(
                                        "pigeon_queue_notifications_total", project, "work", "outcome=\"delivered\"")));
        assertEquals(0.0, scrape.messages(project, "work", "ready"));
        assertEquals(2.0, scrape.queue("pigeon_queue_messages_claimed_total", project, "work"));
        assertEquals(1.0, scrape.queue("pigeon_queue_notifications_total", project, "work", "outcome=\"failed\""));
        assertEquals(0.0, scrape.queue("pigeon_queue_messages_dead_lettered_total", project, "dead"));
        assertEquals(2, scrape.queues());
    }

    /** What parallel clients did, as they tallied it from their answers. */
    private static final class Tally {
        final AtomicLong posted = new AtomicLong();
        final AtomicLong claimed = new AtomicLong();
        final AtomicLong deleted = new AtomicLong();
        final AtomicLong emptyClaims = new AtomicLong();
    }

    @Test
    void totalsAreExactUnderParallelClients() throws Exception {
        Map<String, Tally> tallies = Map.of("busy-a", new Tally(), "busy-b", new Tally());
        // Made first: a claim on a queue that does not exist yet is no queue's empty claim.
        for (String queue : tallies.keySet()) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{}")
                    .put("/v2/queues/" + queue)
                    .then()
                    .statusCode(201);
        }
        ExecutorService clients = Executors.newFixedThreadPool(8);
        long deadline = System.nanoTime() + Duration.ofSeconds(4).toNanos();
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < 8; c++) {
            String queue = c % 2 == 0 ? "busy-a" : "busy-b";
            Tally tally = tallies.get(queue);
            boolean producer = c < 4;
            running.add(clients.submit(() -> {
                while (System.nanoTime() < deadline) {
                    if (producer) {
                        post(queue, "{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}");
                        tally.posted.addAndGet(2);
                        continue;
                    }
                    Response claimed = claim(queue, 3);
                    if (claimed.statusCode() == 204) {
                        tally.emptyClaims.incrementAndGet();
                        continue;
                    }
                    List<String> hrefs = claimed.jsonPath().getList("messages.href");
                    tally.claimed.addAndGet(hrefs.size());
                    for (String href : hrefs) {
                        Api.as(project).delete(href).then().statusCode(204);
                        tally.deleted.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> client : running) {
            client.get(60, TimeUnit.SECONDS);
        }
        clients.shutdown();
        for (Map.Entry<String, Tally> entry : tallies.entrySet()) {
            String queue = entry.getKey();
            Tally tally = entry.getValue();
            assertTrue(tally.posted.get() > 0 && tally.claimed.get() > 0, queue + " was busy");
            QueueSeriesScrape scrape = settled(
                    "?project=" + project + "&queue=" + queue,
                    s -> Double.valueOf(tally.posted.get())
                                    .equals(s.queue("pigeon_queue_messages_posted_total", project, queue))
                            && Double.valueOf(tally.deleted.get())
                                    .equals(s.queue("pigeon_queue_messages_deleted_total", project, queue))
                            // and a sample taken after the last of them
                            && Double.valueOf(tally.posted.get() - tally.deleted.get())
                                    .equals(s.backlog(project, queue)));
            assertEquals(tally.claimed.get(), scrape.queue("pigeon_queue_messages_claimed_total", project, queue));
            assertEquals(tally.emptyClaims.get(), scrape.queue("pigeon_queue_claims_empty_total", project, queue));
            assertEquals(
                    tally.posted.get() - tally.deleted.get(),
                    scrape.messages(project, queue, "ready") + scrape.messages(project, queue, "claimed"));
        }
    }

    @Test
    void filtersSelectProjectsQueuesAndTopicsAndNothingOfAnotherProject() {
        String other = Api.newProject();
        post("shared", "{\"ttl\": 300, \"body\": 1}");
        post("mine", "{\"ttl\": 300, \"body\": 1}");
        Api.as(other)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}]}")
                .post("/v2/queues/shared/messages")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}]}")
                .post("/v2/topics/shared/messages")
                .then()
                .statusCode(201);

        String topicPosted = "pigeon_queue_messages_posted_total{project=\"" + project + "\",topic=\"shared\"} 1\n";
        QueueSeriesScrape mine = settled(
                "?project=" + project,
                s -> Double.valueOf(1).equals(s.messages(project, "mine", "ready"))
                        && s.text().contains(topicPosted));
        assertEquals(2, mine.queues(), "two queues and no topic counted as a queue: " + mine.text());
        assertTrue(mine.text()
                .contains("pigeon_queue_messages_posted_total{project=\"" + project + "\",topic=\"shared\"} 1\n"));
        assertFalse(mine.text().contains(other), "another project's queue");

        QueueSeriesScrape one = QueueSeriesScrape.of("?project=" + project + "&queue=shared");
        assertEquals(1, one.queues());
        assertFalse(one.text().contains("topic="), "a queue filter selects queues only");
        QueueSeriesScrape topic = QueueSeriesScrape.of("?project=" + project + "&topic=shared");
        assertEquals(0, topic.queues());
        assertTrue(topic.text().contains("topic=\"shared\""));
        QueueSeriesScrape both = QueueSeriesScrape.of("?project=" + project + "&project=" + other + "&queue=shared");
        assertEquals(2, both.queues());
        assertEquals(1.0, both.queue("pigeon_queue_messages_posted_total", project, "shared"));
        assertEquals(2.0, both.queue("pigeon_queue_messages_posted_total", other, "shared"));
        assertEquals(0, QueueSeriesScrape.of("?project=" + Api.newProject()).queues());
    }

    @Test
    void aFilterOutOfBoundsIsRefusedWithTheErrorDocument() {
        given().get("/q/metrics/queues?queue=no%20spaces")
                .then()
                .statusCode(400)
                .contentType(ContentType.JSON)
                .body("title", equalTo("Invalid queue identification"));
        given().get("/q/metrics/queues?topic=" + "t".repeat(65)).then().statusCode(400);
        given().get("/q/metrics/queues?project=" + "p".repeat(257))
                .then()
                .statusCode(400)
                .body("description", containsString("\"project\""))
                .body("description", containsString("256"));
        given().queryParam("project", "a\u0000b")
                .get("/q/metrics/queues")
                .then()
                .statusCode(400)
                .body("description", containsString("control"));
        given().queryParam("project", "line\nfeed")
                .get("/q/metrics/queues")
                .then()
                .statusCode(400);
        StringBuilder many = new StringBuilder("?");
        for (int i = 0; i <= QueueSeries.MAX_FILTER_VALUES; i++) {
            many.append("queue=q").append(i).append('&');
        }
        given().get("/q/metrics/queues" + many)
                .then()
                .statusCode(400)
                .body("description", containsString("\"queue\""))
                .body("description", containsString(String.valueOf(QueueSeries.MAX_FILTER_VALUES)));
    }

    @Test
    void labelValuesAreEscapedSoNoProjectIdBreaksALine() {
        String odd = "odd\"project\\" + UUID.randomUUID() + " } x=\"1";
        Api.as(odd)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}]}")
                .post("/v2/queues/q/messages")
                .then()
                .statusCode(201);
        String escaped = odd.replace("\\", "\\\\").replace("\"", "\\\"");
        QueueSeriesScrape scrape = settled("", request -> request.queryParam("project", odd), s -> s.text()
                .contains("pigeon_queue_messages{project=\"" + escaped + "\",queue=\"q\",state=\"ready\"} 1\n"));
        for (String line : scrape.text().split("\n")) {
            assertTrue(line.startsWith("#") || line.matches("[a-z_]+(\\{.*\\})? [0-9.eE+-]+"), line);
        }
    }

    @Test
    void theAggregateMetricsHoldAsManySeriesWithOneQueueAsWithMany() {
        // One round of every operation first, so that every series the operations make exists (the HTTP metrics name
        // each path template once), then the same on 40 more queues: /q/metrics must not grow.
        exercise("warm-up");
        Set<String> before = aggregateSeries();
        for (int i = 0; i < 40; i++) {
            exercise("many-" + i);
        }
        Eventually.await(
                "the per-queue series hold 41 queues",
                SETTLED,
                () -> QueueSeriesScrape.of("?project=" + project).queues() == 41);
        Set<String> after = aggregateSeries();
        Set<String> added = new TreeSet<>(after);
        added.removeAll(before);
        assertEquals(
                Set.of(),
                added,
                "series of /q/metrics that 40 more queues added (" + after.size() + " after, " + before.size()
                        + " before)");
    }

    private void exercise(String queue) {
        post(queue, "{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2}");
        Response claimed = claim(queue, 1);
        Api.as(project)
                .delete(claimed.jsonPath().getString("messages[0].href"))
                .then()
                .statusCode(204);
        Api.as(project).delete("/v2/queues/" + queue + "/messages?pop=1").then().statusCode(200);
        claim(queue, 1).then().statusCode(204);
        Api.as(project).get("/v2/queues/" + queue + "/stats").then().statusCode(200);
    }

    /** Each series of {@code /q/metrics}: its name and labels, without its value. */
    private static Set<String> aggregateSeries() {
        String text = given().get("/q/metrics").then().statusCode(200).extract().asString();
        return text.lines()
                .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                .map(line -> line.substring(0, line.lastIndexOf(' ')))
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
