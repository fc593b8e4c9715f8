package io.pigeon.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.JavaSources;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The one direction of the code, read from the sources: the domain knows no HTTP (nothing under its packages
 * mentions the web layer or JAX-RS), the web layer's doors stand side by side (the REST API, its WebSocket transport
 * {@code api/ws} and the console {@code api/console}: none names another's package), and the packages depend on each
 * other without circles.
 */
class PackageDirectionTest {

    private static final Path SOURCES = Path.of("src/main/java/io/pigeon");
    private static final List<String> DOMAIN = List.of(
            "queue",
            "message",
            "claim",
            "subscription",
            "dispatch",
            "maintenance",
            "tenancy",
            "purge",
            "quota",
            "scaling",
            "rules",
            "ids",
            "json",
            "storage");
    /** The doors beside the REST API, each named only by its own sources (the REST API is the rest of {@code api}). */
    private static final List<String> SIDE_DOORS = List.of("api/ws", "api/console");

    private static final Pattern REFERENCE = Pattern.compile("io\\.pigeon\\.([a-z0-9_]+)(?:\\.[a-z0-9_]+)*\\.[A-Z]");

    @Test
    void noDomainPackageMentionsTheWebLayer() {
        List<String> offences = new ArrayList<>();
        for (String domainPackage : DOMAIN) {
            for (Path source : JavaSources.under(SOURCES.resolve(domainPackage))) {
                String code = JavaSources.withoutComments(JavaSources.read(source));
                if (code.contains("io.pigeon.api") || code.contains("jakarta.ws.rs")) {
                    offences.add(SOURCES.relativize(source).toString());
                }
            }
        }
        assertEquals(List.of(), offences, "domain sources that name io.pigeon.api or jakarta.ws.rs");
    }

    @Test
    void theDoorsStandSideBySide() {
        List<String> offences = new ArrayList<>();
        for (Path source : JavaSources.under(SOURCES)) {
            String code = JavaSources.withoutComments(JavaSources.read(source));
            for (String door : SIDE_DOORS) {
                Path home = SOURCES.resolve(door);
                if (!source.startsWith(home) && code.contains("io.pigeon." + door.replace('/', '.') + ".")) {
                    offences.add(SOURCES.relativize(source) + " names " + door);
                }
            }
        }
        assertEquals(List.of(), offences, "sources outside a door that name its package");
    }

    @Test
    void thePackageGraphHasNoCircles() {
        Map<String, Set<String>> uses = new TreeMap<>();
        for (Path source : JavaSources.under(SOURCES)) {
            String from = SOURCES.relativize(source).getName(0).toString();
            if (from.endsWith(".java")) {
                continue;
            }
            Matcher reference = REFERENCE.matcher(JavaSources.withoutComments(JavaSources.read(source)));
            while (reference.find()) {
                if (!reference.group(1).equals(from)) {
                    uses.computeIfAbsent(from, any -> new TreeSet<>()).add(reference.group(1));
                }
            }
        }
        assertTrue(uses.containsKey("api") && uses.get("api").contains("message"), "the graph was read: " + uses);
        for (String start : uses.keySet()) {
            List<String> circle = circleThrough(start, uses);
            assertTrue(circle.isEmpty(), "a circle: " + String.join(" -> ", circle));
        }
    }

    /** A path of uses from {@code start} back to itself, or empty. */
    private static List<String> circleThrough(String start, Map<String, Set<String>> uses) {
        Deque<List<String>> paths = new ArrayDeque<>();
        paths.add(List.of(start));
        Set<String> seen = new TreeSet<>();
        while (!paths.isEmpty()) {
            List<String> path = paths.poll();
            for (String next : uses.getOrDefault(path.get(path.size() - 1), Set.of())) {
                List<String> longer = new ArrayList<>(path);
                longer.add(next);
                if (next.equals(start)) {
                    return longer;
                }
                if (seen.add(next)) {
                    paths.add(longer);
                }
            }
        }
        return List.of();
    }
}
