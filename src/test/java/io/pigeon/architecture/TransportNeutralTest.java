package io.pigeon.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The request readers, the views, the home documents and the API dialect are shared by every transport (the HTTP
 * resources now, a WebSocket later): read from the sources, none of them names a web type (JAX-RS, RESTEasy,
 * Vert.x). The resources adapt requests to them.
 */
class TransportNeutralTest {

    private static final Path API = Path.of("src/main/java/io/pigeon/api");
    private static final List<String> WEB_TYPES = List.of("jakarta.ws.rs", "org.jboss.resteasy", "io.vertx");

    @Test
    void readersViewsAndTheDialectNameNoWebType() {
        List<Path> shared = new ArrayList<>();
        for (String folder : List.of("read", "view", "home")) {
            shared.addAll(sources(API.resolve(folder)));
        }
        shared.add(API.resolve("ApiVersion.java"));
        shared.add(API.resolve("ApiDialect.java"));
        for (String version : List.of("v1", "v2", "v3")) {
            sources(API.resolve(version)).stream()
                    .filter(file -> file.getFileName().toString().endsWith("Views.java"))
                    .forEach(shared::add);
        }
        assertTrue(shared.size() > 20, "the shared sources were found: " + shared);
        List<String> offences = new ArrayList<>();
        for (Path source : shared) {
            String code = read(source).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
            WEB_TYPES.stream()
                    .filter(code::contains)
                    .forEach(type -> offences.add(API.relativize(source) + ": " + type));
        }
        assertEquals(List.of(), offences, "shared API sources that name a web type");
    }

    private static List<Path> sources(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(file -> file.toString().endsWith(".java"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path source) {
        try {
            return Files.readString(source);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
