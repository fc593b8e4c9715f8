package io.pigeon.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.JavaSources;
import java.io.IOException;
import java.nio.file.Files;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The one direction of the code, read from the sources: the domain knows no HTTP (nothing under its packages
 * mentions the web layer, a door or JAX-RS), every package is either a door or domain (so that a new package cannot
 * escape the first rule by not being listed), the web layer's doors stand side by side (the REST API, its WebSocket
 * transport {@code api/ws} and the console {@code api/console}: none names another's package), and the packages depend
 * on each other without circles.
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
            "storage",
            "waiting",
            "redrive",
            "queuemetrics",
            "pool",
            "health",
            "encryption",
            "observability",
            "config",
            "accesskeys",
            "sqs");
    /** The door: the package that knows the web (HTTP, JAX-RS, websockets, gRPC, the console) and calls the domain. */
    private static final List<String> DOORS = List.of("api");
    /** The doors beside the REST API, each named only by its own sources (the REST API is the rest of {@code api}). */
    private static final List<String> SIDE_DOORS = List.of("api/ws", "api/console", "api/sqs");

    private static final Pattern REFERENCE = Pattern.compile("io\\.pigeon\\.([a-z0-9_]+)(?:\\.[a-z0-9_]+)*\\.[A-Z]");

    @Test
    void noDomainPackageMentionsTheWebLayer() {
        List<String> offences = new ArrayList<>();
        for (String domainPackage : DOMAIN) {
            for (Path source : JavaSources.under(SOURCES.resolve(domainPackage))) {
                String code = JavaSources.withoutComments(JavaSources.read(source));
                if (DOORS.stream().anyMatch(door -> code.contains("io.pigeon." + door + "."))
                        || code.contains("jakarta.ws.rs")) {
                    offences.add(SOURCES.relativize(source).toString());
                }
            }
        }
        assertEquals(List.of(), offences, "domain sources that name a door (" + DOORS + ") or jakarta.ws.rs");
    }

    @Test
    void everyPackageIsADoorOrDomainAndEveryDomainPackageExists() throws IOException {
        Set<String> packages = new TreeSet<>();
        try (Stream<Path> children = Files.list(SOURCES)) {
            children.filter(Files::isDirectory)
                    .map(child -> child.getFileName().toString())
                    .forEach(packages::add);
        }
        Set<String> unlisted = new TreeSet<>(packages);
        unlisted.removeAll(DOMAIN);
        unlisted.removeAll(DOORS);
        assertEquals(Set.of(), unlisted, "packages neither domain nor a door: add them to DOMAIN (or DOORS)");
        Set<String> gone = new TreeSet<>(DOMAIN);
        gone.removeAll(packages);
        assertEquals(Set.of(), gone, "domain packages listed that do not exist");
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
