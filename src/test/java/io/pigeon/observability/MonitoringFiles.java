package io.pigeon.observability;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;

/** The monitoring files the repository ships, read as Prometheus and Grafana read them. */
final class MonitoringFiles {

    static final Path ALERTS = Path.of("monitoring/pigeon-alerts.yml");
    static final Path ALERT_TESTS = Path.of("monitoring/pigeon-alerts.test.yml");
    static final Path DASHBOARD = Path.of("monitoring/pigeon-dashboard.json");
    static final Path PROMETHEUS_RULE = Path.of("k8s/examples/pigeon-prometheusrule.yaml");

    /** {@code <measure> <comparison> <number>}: what every alert's expression is. */
    private static final Pattern THRESHOLD =
            Pattern.compile("(?s)^(.*\\S)\\s*(>|<|>=|<=|==|!=)\\s*(-?[0-9.]+(?:e[0-9]+)?)\\s*$");

    /** The selector inside a template variable's {@code label_values(<selector>, <label>)}. */
    private static final Pattern LABEL_VALUES = Pattern.compile("^label_values\\((.*),\\s*([a-z_]+)\\)$");

    /** One alert: its name, its expression, and the expression without its threshold. */
    record Alert(String name, String expression, String measure) {}

    private MonitoringFiles() {}

    static Object yaml(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file)) {
            return new Yaml().load(reader);
        }
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> groups(Object rulesDocument) {
        return (List<Map<String, Object>>) ((Map<String, Object>) rulesDocument).get("groups");
    }

    @SuppressWarnings("unchecked")
    static List<Alert> alerts() throws IOException {
        List<Alert> alerts = new ArrayList<>();
        for (Map<String, Object> group : groups(yaml(ALERTS))) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                String expression = ((String) rule.get("expr")).strip();
                Matcher matcher = THRESHOLD.matcher(expression);
                assertTrue(
                        matcher.matches(), rule.get("alert") + ": not <measure> <comparison> <number>: " + expression);
                alerts.add(new Alert((String) rule.get("alert"), expression, matcher.group(1)));
            }
        }
        return alerts;
    }

    static List<String> alertNames() throws IOException {
        return alerts().stream().map(Alert::name).toList();
    }

    static JsonNode dashboard() throws IOException {
        return new ObjectMapper().readTree(DASHBOARD.toFile());
    }

    /** Every panel's query, and the selector of every template variable's label_values query. */
    static List<String> dashboardQueries() throws IOException {
        JsonNode dashboard = dashboard();
        List<String> queries = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            panel.path("targets")
                    .forEach(target -> queries.add(target.path("expr").asText()));
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if ("query".equals(variable.path("type").asText())) {
                Matcher matcher =
                        LABEL_VALUES.matcher(variable.path("definition").asText());
                assertTrue(matcher.matches(), "a label_values query: " + variable);
                queries.add("count by (" + matcher.group(2) + ") (" + matcher.group(1) + ")");
            }
        }
        return queries;
    }
}
