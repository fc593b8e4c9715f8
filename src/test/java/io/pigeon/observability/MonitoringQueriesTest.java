package io.pigeon.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.testing.Api;
import io.pigeon.testing.Messages;
import io.pigeon.testing.PrometheusServer;
import io.pigeon.testing.Receiver;
import io.pigeon.testing.Slow;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shipped dashboard and alert rules ({@link MonitoringFiles}) against a real Prometheus scraping this Pigeon while
 * clients use it: Prometheus loads the rules file as written and evaluates every rule without an error, and every
 * dashboard query, every template variable's query and every alert's measure (its expression without the threshold)
 * answers at least one series. A query that names a series Pigeon does not export, a label it does not have, or that
 * does not parse fails here, not on an operator's screen.
 */
@QuarkusTest
@Slow
class MonitoringQueriesTest {

    @RegisterExtension
    static final Receiver receiver = new Receiver();

    /** Long enough for a rate over {@link #RATE_INTERVAL} to have samples, short enough for a test. */
    private static final Duration SETTLED = Duration.ofSeconds(90);

    /** What the dashboard's {@code $__rate_interval} stands for here: a few one-second scrapes. */
    private static final String RATE_INTERVAL = "15s";

    @Test
    void everyDashboardQueryAndAlertMeasureAnswersAndEveryRuleEvaluates() throws Exception {
        Assumptions.assumeTrue(
                PrometheusServer.installed(),
                PrometheusServer.BINARY
                        + " is not installed (Debian's prometheus package; .ci/run installs it as root):" + " skipped");
        String project = Api.newProject();
        useQueues(project);

        String configuration =
                """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                rule_files: ["pigeon-alerts.yml"]
                scrape_configs:
                  - job_name: pigeon
                    metrics_path: /q/metrics
                    static_configs:
                      - targets: ["127.0.0.1:%1$d"]
                  - job_name: pigeon-queues
                    metrics_path: /q/metrics/queues
                    params:
                      project: ["%2$s"]
                    static_configs:
                      - targets: ["127.0.0.1:%1$d"]
                """
                        .formatted(RestAssured.port, project);
        try (PrometheusServer prometheus = PrometheusServer.start(
                configuration, Map.of("pigeon-alerts.yml", Files.readString(MonitoringFiles.ALERTS)))) {
            prometheus.within(
                    "a few scrapes of both jobs",
                    SETTLED,
                    () -> answers(
                                    prometheus,
                                    "count_over_time(pigeon_queue_messages{state=\"ready\"}[" + RATE_INTERVAL
                                            + "]) >= 5")
                            && answers(
                                    prometheus,
                                    "count_over_time(pigeon_http_responses_total{class=\"2xx\"}[" + RATE_INTERVAL
                                            + "]) >= 5"));

            List<String> silent = new ArrayList<>();
            for (String query : queries()) {
                if (!answersWithin(prometheus, query)) {
                    silent.add(query);
                }
            }
            assertEquals(List.of(), silent, "queries that answer no series");

            prometheus.within("every rule evaluated", SETTLED, () -> rules(prometheus).stream()
                    .allMatch(rule -> !rule.path("lastEvaluation").asText().startsWith("0001")));
            Set<String> broken = new TreeSet<>();
            Set<String> alerts = new TreeSet<>();
            for (JsonNode rule : rules(prometheus)) {
                alerts.add(rule.path("name").asText());
                if (!"ok".equals(rule.path("health").asText())) {
                    broken.add(rule.path("name").asText() + ": "
                            + rule.path("lastError").asText());
                }
            }
            assertEquals(Set.of(), broken, "rules Prometheus could not evaluate");
            assertEquals(new TreeSet<>(MonitoringFiles.alertNames()), alerts, "the rules Prometheus loaded");
        }
    }

    /** Every query the files hold, template variables filled in as Grafana would with "All" selected. */
    private static List<String> queries() throws IOException {
        List<String> queries = new ArrayList<>();
        for (String expression : MonitoringFiles.dashboardQueries()) {
            queries.add(expression
                    .replace("$__rate_interval", RATE_INTERVAL)
                    .replace("$project", ".*")
                    .replace("$queue", ".*"));
        }
        for (MonitoringFiles.Alert alert : MonitoringFiles.alerts()) {
            queries.add(alert.measure());
        }
        assertFalse(queries.isEmpty());
        return queries;
    }

    private static boolean answersWithin(PrometheusServer prometheus, String query) {
        try {
            prometheus.within(query, Duration.ofSeconds(20), () -> answers(prometheus, query));
            return true;
        } catch (AssertionError silent) {
            return false;
        }
    }

    private static boolean answers(PrometheusServer prometheus, String query) {
        try {
            return !prometheus.query(query).isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    private static List<JsonNode> rules(PrometheusServer prometheus) {
        try {
            List<JsonNode> rules = new ArrayList<>();
            for (JsonNode group :
                    prometheus.document("/api/v1/rules").path("data").path("groups")) {
                group.path("rules").forEach(rules::add);
            }
            return rules;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * What an operator's replica sees in a working day, in small: posts, claims, deletes, a claim that finds nothing,
     * a webhook subscriber that is called, a fifo queue (whose blocked groups are a series of their own), so that the
     * flow, latency, dispatch and group series have samples.
     */
    private static void useQueues(String project) {
        Messages.postV2(project, "work", 5, 600, 0);
        String claim = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/work/claims?limit=2")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("messages[0].href");
        Api.as(project).delete(claim).then().statusCode(204);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/queues/empty")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/empty/claims")
                .then()
                .statusCode(204);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_ordering\": \"fifo\"}")
                .put("/v2/queues/ordered")
                .then()
                .statusCode(201);
        String path = "/monitoring-hook";
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"subscriber\": \"" + receiver.url(path) + "\", \"ttl\": 3600}")
                .post("/v2/queues/hooked/subscriptions")
                .then()
                .statusCode(201);
        Messages.postV2(project, "hooked", 1, 600, 0);
    }
}
