package io.pigeon.queuemetrics;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.quota.SmallQuotasProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a tenant can make /q/metrics/queues and the replica's counts hold is bounded: an answer holds at most
 * {@code max-series} (39: 3 queues) and says it left queues out; a replica counts at most {@code max-counted-queues}
 * (2) queues between two flushes and counts what it drops.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
class QueueMetricsBoundsTest {

    private static void post(String project, String queue) {
        Messages.postV2(project, queue, 1, 300, 0);
    }

    @Test
    void anAnswerPastItsBoundLeavesQueuesOutAndSaysSo() {
        String first = "bounds-a-" + Api.newProject();
        String second = "bounds-b-" + Api.newProject();
        for (String project : List.of(first, second)) {
            post(project, "q1");
            post(project, "q2");
        }
        String both = "?project=" + first + "&project=" + second;
        Eventually.await("four queues sampled", Duration.ofSeconds(15), () -> QueueSeriesScrape.of(both + "&queue=q2")
                .text()
                .contains("project=\"" + second + "\",queue=\"q2\",state=\"ready\"} 1"));
        QueueSeriesScrape truncated = QueueSeriesScrape.of(both);
        assertEquals(3, truncated.queues(), truncated.text());
        assertTrue(truncated.text().contains("pigeon_queue_series_truncated 1\n"), truncated.text());
        assertTrue(truncated.text().contains("# Truncated at pigeon.queue-metrics.max-series"), truncated.text());
        // Whole queues, in project and queue order: the last one is left out.
        assertFalse(truncated.text().contains("project=\"" + second + "\",queue=\"q2\""), truncated.text());
        long series = truncated.samples().size();
        assertTrue(series <= 39 + 2, series + " series");

        QueueSeriesScrape narrowed = QueueSeriesScrape.of("?project=" + second + "&queue=q2");
        assertEquals(1, narrowed.queues());
        assertTrue(narrowed.text().contains("pigeon_queue_series_truncated 0\n"));
    }

    @Test
    void countsOfMoreQueuesThanAReplicaHoldsBetweenFlushesAreDroppedAndCounted() {
        double before = dropped();
        List<String> projects = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            projects.add(Api.newProject());
        }
        // Ten queues within much less than a flush period (a second): at least six counts have no room.
        for (String project : projects) {
            post(project, "a");
            post(project, "b");
        }
        assertTrue(dropped() >= before + 1, "dropped " + (dropped() - before));
    }

    private static double dropped() {
        String metrics =
                given().get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher matcher = Pattern.compile("(?m)^pigeon_queue_counts_dropped_total(?:\\{[^}]*\\})? ([0-9.eE+-]+)$")
                .matcher(metrics);
        assertTrue(matcher.find(), "pigeon_queue_counts_dropped_total is exported");
        return Double.parseDouble(matcher.group(1));
    }
}
