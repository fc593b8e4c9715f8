package io.pigeon.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md says which of Quarkus's settings it lists are fixed when Pigeon is built: Quarkus reads those
 * only at build time, so given at start they stop it (Pigeon sets {@code quarkus.config.build-time-mismatch-at-runtime}
 * to {@code fail}) or are ignored (Quarkus's build-time-only settings). An operator reading a row as a start setting
 * would be wrong either way. The phases are Quarkus's own, from the configuration model each extension ships
 * ({@code META-INF/quarkus-config-doc/quarkus-config-model.json}).
 */
class QuarkusSettingsPhaseTest {

    private static final Path CONFIGURATION = Path.of("docs", "configuration.md");
    private static final Pattern ROW_SETTING = Pattern.compile("^\\| `(quarkus\\.[a-z0-9.\"-]+)`");
    private static final List<String> BUILD_PHASES = List.of("BUILD_TIME", "BUILD_AND_RUN_TIME_FIXED");

    @Test
    void everyRowOfASettingFixedAtBuildTimeSaysSo() throws IOException {
        Map<String, String> phases = quarkusPhases();
        assertTrue(phases.size() > 100, "the extensions' configuration models were not found: " + phases.size());
        List<String> wrong = new ArrayList<>();
        for (String row : Files.readAllLines(CONFIGURATION)) {
            Matcher setting = ROW_SETTING.matcher(row);
            if (!setting.find()) {
                continue;
            }
            String phase = phases.get(setting.group(1));
            boolean fixed = phase != null && BUILD_PHASES.contains(phase);
            if (fixed && !row.toLowerCase(Locale.ROOT).contains("build time")) {
                wrong.add(setting.group(1) + " (" + phase + "): its row does not say \"build time\"");
            }
        }
        assertEquals(List.of(), wrong);
    }

    /** Every configuration property of the extensions on the class path, by name, with its phase. */
    private static Map<String, String> quarkusPhases() throws IOException {
        ObjectMapper json = new ObjectMapper();
        Map<String, String> phases = new HashMap<>();
        Enumeration<URL> models = QuarkusSettingsPhaseTest.class
                .getClassLoader()
                .getResources("META-INF/quarkus-config-doc/quarkus-config-model.json");
        while (models.hasMoreElements()) {
            try (InputStream in = models.nextElement().openStream()) {
                collect(json.readTree(in), phases);
            }
        }
        return phases;
    }

    private static void collect(JsonNode node, Map<String, String> phases) {
        if (node.isObject()) {
            JsonNode property = node.path("path").path("property");
            if (property.isTextual() && node.path("phase").isTextual()) {
                phases.put(property.asText(), node.path("phase").asText());
            }
        }
        node.forEach(child -> collect(child, phases));
    }
}
