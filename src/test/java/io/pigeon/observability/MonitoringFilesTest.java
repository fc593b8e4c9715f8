package io.pigeon.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * What the shipped monitoring files promise without a running Prometheus (MonitoringQueriesTest evaluates them
 * against one, and {@code .ci/run} runs {@code promtool check rules} and {@code promtool test rules}): the
 * PrometheusRule holds the rules file's groups exactly, every alert has a unit test that fires it and one that keeps
 * it quiet, every dashboard panel has a query, and the operations guide names every alert.
 */
class MonitoringFilesTest {

    @Test
    @SuppressWarnings("unchecked")
    void thePrometheusRuleHoldsTheRulesFilesGroupsExactly() throws IOException {
        Map<String, Object> resource = (Map<String, Object>) MonitoringFiles.yaml(MonitoringFiles.PROMETHEUS_RULE);
        assertEquals("PrometheusRule", resource.get("kind"));
        assertEquals("monitoring.coreos.com/v1", resource.get("apiVersion"));
        assertEquals(
                MonitoringFiles.groups(MonitoringFiles.yaml(MonitoringFiles.ALERTS)),
                MonitoringFiles.groups(resource.get("spec")));
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyAlertHasAUnitTestThatFiresItAndOneThatDoesNot() throws IOException {
        Map<String, Object> tests = (Map<String, Object>) MonitoringFiles.yaml(MonitoringFiles.ALERT_TESTS);
        assertEquals(List.of("pigeon-alerts.yml"), tests.get("rule_files"));
        Set<String> fired = new TreeSet<>();
        Set<String> quiet = new TreeSet<>();
        for (Map<String, Object> test : (List<Map<String, Object>>) tests.get("tests")) {
            for (Map<String, Object> check : (List<Map<String, Object>>) test.get("alert_rule_test")) {
                List<?> expected = (List<?>) check.get("exp_alerts");
                (expected.isEmpty() ? quiet : fired).add((String) check.get("alertname"));
            }
        }
        Set<String> alerts = new TreeSet<>(MonitoringFiles.alertNames());
        assertFalse(alerts.isEmpty());
        assertEquals(alerts, fired, "alerts a unit test fires");
        assertEquals(alerts, quiet, "alerts a unit test keeps quiet");
    }

    @Test
    void everyPanelHasAQueryAndEveryQueryTheDatasourceVariable() throws IOException {
        JsonNode dashboard = MonitoringFiles.dashboard();
        List<String> empty = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            if ("row".equals(panel.path("type").asText())) {
                continue;
            }
            if (panel.path("targets").isEmpty()) {
                empty.add(panel.path("title").asText());
            }
            for (JsonNode target : panel.path("targets")) {
                assertEquals(
                        "${datasource}", target.path("datasource").path("uid").asText(), panel.toString());
            }
        }
        assertEquals(List.of(), empty, "panels without a query");
        assertTrue(MonitoringFiles.dashboardQueries().size() > 20);
    }

    @Test
    void theOperationsGuideNamesEveryAlertAndFile() throws IOException {
        String guide = Files.readString(Path.of("docs/operations.md"));
        List<String> missing = new ArrayList<>();
        for (String alert : MonitoringFiles.alertNames()) {
            if (!guide.contains("`" + alert + "`")) {
                missing.add(alert);
            }
        }
        for (Path file : List.of(
                MonitoringFiles.ALERTS,
                MonitoringFiles.ALERT_TESTS,
                MonitoringFiles.DASHBOARD,
                MonitoringFiles.PROMETHEUS_RULE)) {
            if (!guide.contains(file.toString())) {
                missing.add(file.toString());
            }
        }
        assertEquals(List.of(), missing, "not named in docs/operations.md");
    }
}
