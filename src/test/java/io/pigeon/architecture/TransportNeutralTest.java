package io.pigeon.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.JavaSources;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
            shared.addAll(JavaSources.under(API.resolve(folder)));
        }
        shared.add(API.resolve("ApiVersion.java"));
        shared.add(API.resolve("ApiDialect.java"));
        for (String version : List.of("v1", "v2", "v3")) {
            JavaSources.under(API.resolve(version)).stream()
                    .filter(file -> file.getFileName().toString().endsWith("Views.java"))
                    .forEach(shared::add);
        }
        assertTrue(shared.size() > 20, "the shared sources were found: " + shared);
        List<String> offences = new ArrayList<>();
        for (Path source : shared) {
            String code = JavaSources.withoutComments(JavaSources.read(source));
            WEB_TYPES.stream()
                    .filter(code::contains)
                    .forEach(type -> offences.add(API.relativize(source) + ": " + type));
        }
        assertEquals(List.of(), offences, "shared API sources that name a web type");
    }
}
