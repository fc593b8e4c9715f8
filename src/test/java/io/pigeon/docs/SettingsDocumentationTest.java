package io.pigeon.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.config.PigeonConfig;
import io.pigeon.config.PositiveDuration;
import io.pigeon.testing.SettingsMappings;
import io.smallrye.config.WithName;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.hibernate.validator.constraints.time.DurationMax;
import org.hibernate.validator.constraints.time.DurationMin;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md and the checks at start agree: every setting of every mapping ({@link PigeonConfig} and each
 * feature's own, found by {@link SettingsMappings}) has a row, no row documents a {@code pigeon.*} key that no mapping
 * reads any more, and the row's "Bound / unit" cell states the bound its constraint enforces (and, for a bound relative
 * to another setting, names that setting), so that what an operator reads is what stops the start.
 */
class SettingsDocumentationTest {

    private static final Path CONFIGURATION = Path.of("docs", "configuration.md");

    /** The bounds {@code SettingsCheck} sets relative to another setting, by the setting they bound. */
    private static final Map<String, String> RELATIONS = Map.ofEntries(
            Map.entry("pigeon.default-message-ttl", "pigeon.max-message-ttl"),
            Map.entry("pigeon.default-claim-ttl", "pigeon.max-claim-ttl"),
            Map.entry("pigeon.default-claim-grace", "pigeon.max-claim-grace"),
            Map.entry("pigeon.idempotency.default-window", "pigeon.idempotency.max-window"),
            Map.entry("pigeon.redrive.default-rate", "pigeon.redrive.max-rate"),
            Map.entry("pigeon.redrive.max-running-per-project-per-replica", "pigeon.redrive.max-running-per-replica"),
            Map.entry("pigeon.socket-subscriptions.renewal", "pigeon.socket-subscriptions.lease"),
            Map.entry("pigeon.claim-wait.renewal", "pigeon.claim-wait.lease"),
            Map.entry("pigeon.dispatch.retry-initial", "pigeon.dispatch.retry-max"),
            Map.entry("pigeon.dispatch.ontime-horizon", "pigeon.dispatch.max-pending-age"));

    @Test
    void everySettingHasARowWhoseBoundIsTheOneChecked() throws IOException {
        Map<String, String> bounds = documentedBounds();
        List<String> wrong = new ArrayList<>();
        allSettings().forEach((setting, method) -> {
            String cell = bounds.get(setting);
            if (cell == null) {
                wrong.add(setting + ": no row");
                return;
            }
            String expected = boundOf(method);
            if (expected != null && !cell.contains(expected)) {
                wrong.add(setting + ": the cell \"" + cell + "\" does not say \"" + expected + "\"");
            }
            String other = RELATIONS.get(setting);
            if (other != null && !cell.contains("`" + other + "`")) {
                wrong.add(setting + ": the cell \"" + cell + "\" does not name `" + other + "`");
            }
        });
        assertEquals(List.of(), wrong);
    }

    /**
     * A documented {@code pigeon.*} key that no mapping has is a row for a setting that was removed or renamed: the
     * operator setting it would be told it exists. Keys the build reads (a property of pom.xml, like
     * {@code pigeon.local.data-dir}) are not the application's and are exempt.
     */
    @Test
    void everyDocumentedPigeonKeyIsASetting() throws IOException {
        Map<String, Method> settings = allSettings();
        String pom = Files.readString(Path.of("pom.xml"));
        List<String> stale = new ArrayList<>();
        for (String documented : documentedBounds().keySet()) {
            if (documented.startsWith("pigeon.")
                    && !settings.containsKey(documented)
                    && !pom.contains("<" + documented + ">")) {
                stale.add(documented);
            }
        }
        assertEquals(List.of(), stale, "documented in docs/configuration.md, read by no mapping");
    }

    /** The mappings were found, each with settings: a scan that finds none would pass every check above. */
    @Test
    void theMappingsAreFoundByScanning() {
        List<String> prefixes =
                SettingsMappings.all().stream().map(SettingsMappings::prefix).toList();
        assertTrue(prefixes.contains("pigeon") && prefixes.contains("pigeon.dispatch"), prefixes.toString());
        for (Class<?> mapping : SettingsMappings.all()) {
            assertFalse(
                    settings(SettingsMappings.prefix(mapping) + ".", mapping).isEmpty(), mapping.getName());
        }
    }

    /** Each setting of every mapping, by key. */
    static Map<String, Method> allSettings() {
        Map<String, Method> settings = new TreeMap<>();
        for (Class<?> mapping : SettingsMappings.all()) {
            settings.putAll(settings(SettingsMappings.prefix(mapping) + ".", mapping));
        }
        return settings;
    }

    /** The phrase the cell must hold for the constraint on {@code method}, or null when it has none. */
    static String boundOf(Method method) {
        Min min = method.getAnnotation(Min.class);
        Max max = method.getAnnotation(Max.class);
        if (min != null && max != null) {
            return min.value() + " to " + max.value();
        }
        if (min != null) {
            return "at least " + min.value();
        }
        if (method.isAnnotationPresent(PositiveDuration.class)) {
            return "above 0";
        }
        DurationMin durationMin = method.getAnnotation(DurationMin.class);
        DurationMax durationMax = method.getAnnotation(DurationMax.class);
        if (durationMin != null && durationMax != null) {
            return durationMin.seconds() + " to " + durationMax.millis() + " ms";
        }
        if (durationMin != null) {
            return "above " + durationMin.seconds() + " s";
        }
        return null;
    }

    /** Each leaf setting under {@code prefix}, by name (a map's entries as {@code <id>}), with its method. */
    static Map<String, Method> settings(String prefix, Class<?> group) {
        Map<String, Method> settings = new TreeMap<>();
        for (Method method : group.getDeclaredMethods()) {
            // Default and static methods (a mapping's own checks) are not settings, as SmallRye Config reads them.
            if (method.isDefault() || Modifier.isStatic(method.getModifiers()) || method.isSynthetic()) {
                continue;
            }
            WithName named = method.getAnnotation(WithName.class);
            String name = prefix + (named != null ? named.value() : kebab(method.getName()));
            Class<?> type = method.getReturnType();
            if (type.isInterface() && !type.getName().startsWith("java.")) {
                settings.putAll(settings(name + ".", type));
            } else if (Map.class.isAssignableFrom(type)) {
                settings.put(name + ".<id>", method);
            } else {
                settings.put(name, method);
            }
        }
        return settings;
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** The "Bound / unit" cell of each row of the settings table, by setting. */
    private static Map<String, String> documentedBounds() throws IOException {
        Map<String, String> bounds = new LinkedHashMap<>();
        for (String line : Files.readAllLines(CONFIGURATION)) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split(" \\| ");
            if (cells.length < 5) {
                continue;
            }
            String setting = cells[0].substring(2).replace("`", "").trim();
            bounds.put(setting, cells[cells.length - 1].replaceAll("\\s*\\|$", ""));
        }
        return bounds;
    }
}
