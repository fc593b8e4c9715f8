package io.pigeon.queuemetrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Messages;
import io.pigeon.testing.PrometheusServer;
import io.pigeon.testing.Slow;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * A real Prometheus (Debian's package, which {@code .ci/run} installs) scrapes this Pigeon's /q/metrics/queues every
 * second: after a sample period, a PromQL query through its HTTP API answers each queue's ready count as the queue
 * holds it, and the query of the documented KEDA ScaledObject ({@code k8s/examples/keda-prometheus-scaledobject.yaml}),
 * run as written there, answers the backlog KEDA would scale on.
 */
@QuarkusTest
@Slow
class PrometheusScrapeTest {

    private static final Path SCALED_OBJECT = Path.of("k8s/examples/keda-prometheus-scaledobject.yaml");
    private static final Duration SETTLED = Duration.ofSeconds(60);

    @Test
    void prometheusSeesEachQueueAsItIsAndTheScaledObjectsQueryAnswersItsBacklog() throws Exception {
        Assumptions.assumeTrue(
                PrometheusServer.installed(),
                PrometheusServer.BINARY
                        + " is not installed (Debian's prometheus package; .ci/run installs it as root): skipped");
        String query = scaledObjectQuery();
        String project = label(query, "project");
        String queue = label(query, "queue");
        String other = Api.newProject();
        // A project id with the characters the text format must escape in a label value.
        String odd = "odd\"pro\\ject-" + Api.newProject();
        // The ScaledObject's project is a fixed name: start it afresh.
        Api.as(project).delete("/v2/queues/" + queue).then().statusCode(204);
        Api.as(project).delete("/v2/queues/spare").then().statusCode(204);

        // The scaled queue: 7 posted, 3 claimed (ready 4, claimed 3), 1 delayed; another queue and another project's
        // queue of the same name, to tell them apart.
        post(project, queue, 7, 0);
        post(project, queue, 1, 600);
        claim(project, queue, 3);
        post(project, "spare", 2, 0);
        post(other, queue, 5, 0);
        claim(other, queue, 1);
        post(odd, queue, 3, 0);
        Map<String, Long> ready = Map.of(
                project + "/" + queue, readyByStats(project, queue),
                project + "/spare", readyByStats(project, "spare"),
                other + "/" + queue, readyByStats(other, queue),
                odd + "/" + queue, readyByStats(odd, queue));
        assertEquals(
                Map.of(
                        project + "/" + queue, 4L,
                        project + "/spare", 2L,
                        other + "/" + queue, 4L,
                        odd + "/" + queue, 3L),
                ready);

        String configuration =
                """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                scrape_configs:
                  - job_name: pigeon-queues
                    metrics_path: /q/metrics/queues
                    params:
                      project: ["%s", "%s", '%s']
                    static_configs:
                      - targets: ["127.0.0.1:%d"]
                """
                        .formatted(project, other, odd, RestAssured.port);
        try (PrometheusServer prometheus = PrometheusServer.start(configuration, Map.of())) {
            for (Map.Entry<String, Long> expected : ready.entrySet()) {
                int slash = expected.getKey().lastIndexOf('/');
                String promql = "pigeon_queue_messages{project=\""
                        + promqlString(expected.getKey().substring(0, slash)) + "\",queue=\""
                        + expected.getKey().substring(slash + 1) + "\",state=\"ready\"}";
                awaitValue(prometheus, promql, expected.getValue());
            }
            // What KEDA would scale on: the scaled queue's ready and claimed messages, its delayed one left out.
            awaitValue(prometheus, query, 4 + 3);
            assertEquals(Optional.of(7.0), prometheus.value(query), "the ScaledObject's query, as KEDA runs it");
            assertEquals(
                    Optional.of(1.0),
                    prometheus.value("pigeon_queue_messages{project=\"" + project + "\",queue=\"" + queue
                            + "\",state=\"delayed\"}"));
            assertEquals(
                    Optional.of(8.0),
                    prometheus.value(
                            "pigeon_queue_messages_posted_total{project=\"" + project + "\",queue=\"" + queue + "\"}"));
        }
    }

    /** The query of the example ScaledObject's Prometheus trigger, as written in the file. */
    @SuppressWarnings("unchecked")
    private static String scaledObjectQuery() throws IOException {
        try (Reader reader = Files.newBufferedReader(SCALED_OBJECT)) {
            Map<String, Object> document = new Yaml().load(reader);
            assertEquals("ScaledObject", document.get("kind"));
            Map<String, Object> spec = (Map<String, Object>) document.get("spec");
            List<Map<String, Object>> triggers = (List<Map<String, Object>>) spec.get("triggers");
            Map<String, Object> trigger = triggers.get(0);
            assertEquals("prometheus", trigger.get("type"));
            return (String) ((Map<String, Object>) trigger.get("metadata")).get("query");
        }
    }

    /** A PromQL string's content: backslash and double quote escaped. */
    private static String promqlString(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static String label(String query, String name) {
        Matcher matcher = Pattern.compile(name + "=\"([^\"]+)\"").matcher(query);
        assertTrue(matcher.find(), name + " in " + query);
        return matcher.group(1);
    }

    private static void post(String project, String queue, int count, int delay) {
        Messages.postV2(project, queue, count, 600, delay);
    }

    private static void claim(String project, String queue, int limit) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/" + queue + "/claims?limit=" + limit)
                .then()
                .statusCode(201);
    }

    /** The queue's ready messages as its own stats tell them: free, less the delayed ones. */
    private static long readyByStats(String project, String queue) {
        var stats = Api.as(project)
                .get("/v2/queues/" + queue + "/stats?delayed=true")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        return stats.getLong("messages.free") - stats.getLong("messages.delayed");
    }

    private static void awaitValue(PrometheusServer prometheus, String promql, double expected) {
        prometheus.within(promql + " = " + expected, SETTLED, () -> {
            try {
                return prometheus.value(promql).equals(Optional.of(expected));
            } catch (IOException e) {
                return false; // Prometheus has not scraped yet
            }
        });
    }
}
