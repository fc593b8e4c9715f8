package io.pigeon.api.scaler;

import static io.pigeon.api.scaler.ScalerClient.trigger;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.scaling.QueueDepths;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code StreamIsActive} on one replica: it reports the queue's state at once, the first post to an empty queue within
 * a notice (long before the stream's next recheck, {@code pigeon.scaler.recheck}, 10 s, could have seen it), and the
 * queue emptied, or created by its first post, at a recheck. Another project's stream on a queue of the same name
 * hears nothing.
 */
@QuarkusTest
class ScalerStreamTest {

    /** The stream's recheck (the shipped default): a report sooner than this came from a notice. */
    private static final long RECHECK_MILLIS = 10_000;

    @Inject
    QueueDepths depths;

    private final String project = Api.newProject();

    private void post(String queue) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    private void createQueue(String queue) {
        Api.as(project).put("/v2/queues/" + queue).then().statusCode(201);
    }

    @Test
    void theFirstPostToAnEmptyQueueIsReportedActiveAtOnce() throws Exception {
        List<Long> micros = new ArrayList<>();
        String other = Api.newProject();
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon()) {
            for (int trial = 0; trial < 10; trial++) {
                String queue = "empty-" + trial;
                createQueue(queue);
                try (ActivityStream stream = scaler.open(trigger("project", project, "queue", queue));
                        ActivityStream others = scaler.open(trigger("project", other, "queue", queue))) {
                    ActivityStream.Report first = stream.next(RECHECK_MILLIS);
                    assertNotNull(first, "the stream reports the queue's state when it opens");
                    assertFalse(first.active());
                    assertFalse(others.next(RECHECK_MILLIS).active());
                    long posted = System.nanoTime();
                    post(queue);
                    ActivityStream.Report active = stream.next(RECHECK_MILLIS * 2);
                    assertNotNull(active, "no report after the post");
                    assertTrue(active.active());
                    long millis = (active.at() - posted) / 1_000_000;
                    assertTrue(
                            millis < RECHECK_MILLIS / 2, "reported " + millis + " ms after the post: not by a notice");
                    micros.add((active.at() - posted) / 1000);
                    if (trial == 0) {
                        assertNull(others.next(1500), "another project's stream heard of the post");
                    }
                }
            }
        }
        Collections.sort(micros);
        System.out.printf(
                "StreamIsActive, same replica: post -> active reported p50 %.1f ms, max %.1f ms (%d trials)%n",
                micros.get(micros.size() / 2) / 1000.0, micros.get(micros.size() - 1) / 1000.0, micros.size());
        Eventually.await(
                "the streams closed with their clients", Duration.ofSeconds(10), () -> depths.openStreams() == 0);
    }

    @Test
    void aQueueThatEmptiesOrIsCreatedByItsFirstPostIsReportedAtARecheck() throws Exception {
        post("busy");
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon();
                ActivityStream busy = scaler.open(trigger("project", project, "queue", "busy"));
                ActivityStream missing = scaler.open(trigger("project", project, "queue", "not-yet"))) {
            assertTrue(busy.next(RECHECK_MILLIS).active());
            assertFalse(missing.next(RECHECK_MILLIS).active());

            Response claimed = Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"ttl\": 300, \"grace\": 60}")
                    .post("/v2/queues/busy/claims");
            claimed.then().statusCode(201);
            Api.as(project)
                    .delete(claimed.jsonPath().getString("messages[0].href"))
                    .then()
                    .statusCode(204);
            post("not-yet");

            ActivityStream.Report emptied = busy.next(RECHECK_MILLIS + 5000);
            assertNotNull(emptied, "the emptied queue was not reported within a recheck");
            assertFalse(emptied.active());
            ActivityStream.Report created = missing.next(RECHECK_MILLIS + 5000);
            assertNotNull(created, "the queue created by its first post was not reported within a recheck");
            assertTrue(created.active());
            assertNull(busy.ended());
            assertNull(missing.ended());
        }
    }

    @Test
    void aStreamReportsOnlyChanges() throws Exception {
        createQueue("steady");
        try (ScalerClient scaler = ScalerClient.ofTestedPigeon();
                ActivityStream stream =
                        scaler.open(trigger("project", project, "queue", "steady", "metric", "total"))) {
            assertFalse(stream.next(RECHECK_MILLIS).active());
            for (int i = 0; i < 5; i++) {
                post("steady");
            }
            assertTrue(stream.next(RECHECK_MILLIS).active());
            assertNull(stream.next(1500), "more posts to an active queue change nothing to report");
        }
    }
}
