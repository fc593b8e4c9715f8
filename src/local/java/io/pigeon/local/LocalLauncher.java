package io.pigeon.local;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.annotations.QuarkusMain;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The entry point of the {@code local} build only ({@code ./mvnw -Plocal}): when no database is configured
 * it starts an embedded PostgreSQL whose data directory survives restarts, points Pigeon at it, and runs
 * Pigeon. The default build has no such class and no PostgreSQL binaries.
 */
@QuarkusMain
public class LocalLauncher {

    private static final String DATA_DIR_PROPERTY = "pigeon.local.data-dir";

    public static void main(String... args) throws IOException {
        // Read and drop the launcher's own property: it is not part of Pigeon's configuration.
        String dataDirSetting = System.getProperty(DATA_DIR_PROPERTY, "var/pgdata");
        System.clearProperty(DATA_DIR_PROPERTY);
        if (databaseConfigured()) {
            Quarkus.run(args);
            return;
        }
        Path dataDir = Path.of(dataDirSetting).toAbsolutePath();
        Files.createDirectories(dataDir);
        try (EmbeddedPostgres postgres = LocalDatabase.start(dataDir)) {
            System.out.printf("Pigeon: embedded PostgreSQL on port %d, data in %s%n", postgres.getPort(), dataDir);
            System.setProperty(
                    "quarkus.datasource.reactive.url", "postgresql://localhost:" + postgres.getPort() + "/postgres");
            System.setProperty("quarkus.datasource.username", "postgres");
            System.setProperty("quarkus.datasource.password", "postgres");
            Quarkus.run(args);
        }
    }

    /** A server named through the usual Quarkus variables or properties wins over the embedded one. */
    private static boolean databaseConfigured() {
        return System.getenv("QUARKUS_DATASOURCE_REACTIVE_URL") != null
                || System.getProperty("quarkus.datasource.reactive.url") != null;
    }
}
