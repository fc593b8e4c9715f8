package io.pigeon.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.jboss.logging.Logger;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The PostgreSQL every test talks to, chosen so that the suite runs with zero set-up:
 * <ol>
 * <li>the server named by {@code QUARKUS_DATASOURCE_REACTIVE_URL} (with {@code QUARKUS_DATASOURCE_USERNAME}
 * and {@code QUARKUS_DATASOURCE_PASSWORD}) when that variable is set;</li>
 * <li>otherwise a Testcontainers PostgreSQL when a Docker engine answers;</li>
 * <li>otherwise an embedded PostgreSQL whose binaries come from Maven.</li>
 * </ol>
 * One server is started per JVM and shared by every Quarkus start (tests use random projects, so they
 * need no clean-up between them).
 */
public class PostgresResource implements QuarkusTestResourceLifecycleManager {

    private static final Logger LOG = Logger.getLogger(PostgresResource.class);
    private static Map<String, String> shared;

    @Override
    public Map<String, String> start() {
        return startOnce();
    }

    @Override
    public void stop() {
        // The server outlives each Quarkus start; Testcontainers' reaper and the embedded server's
        // shutdown hook stop it when the JVM ends.
    }

    private static synchronized Map<String, String> startOnce() {
        if (shared == null) {
            shared = startServer();
        }
        return shared;
    }

    private static Map<String, String> startServer() {
        if (System.getenv("QUARKUS_DATASOURCE_REACTIVE_URL") != null) {
            LOG.info("Tests use the PostgreSQL named by QUARKUS_DATASOURCE_REACTIVE_URL");
            return Map.of();
        }
        if (dockerAvailable()) {
            LOG.info("Tests use a Testcontainers PostgreSQL");
            PostgreSQLContainer container = new PostgreSQLContainer("postgres:17-alpine");
            container.start();
            return datasource(
                    container.getHost(),
                    container.getMappedPort(5432),
                    container.getDatabaseName(),
                    container.getUsername(),
                    container.getPassword());
        }
        LOG.info("No Docker engine: tests use an embedded PostgreSQL");
        try {
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .setDataDirectory(Files.createTempDirectory("pigeon-test-pg"))
                    .setCleanDataDirectory(true)
                    .setServerConfig("max_connections", "200")
                    .start();
            return datasource("localhost", postgres.getPort(), "postgres", "postgres", "postgres");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start the embedded PostgreSQL", e);
        }
    }

    /** Asks Testcontainers only when a Docker endpoint could exist, so machines without one stay quiet. */
    private static boolean dockerAvailable() {
        boolean endpoint = System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"));
        try {
            return endpoint && DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static Map<String, String> datasource(
            String host, int port, String database, String user, String password) {
        return Map.of(
                "quarkus.datasource.reactive.url", "postgresql://" + host + ":" + port + "/" + database,
                "quarkus.datasource.username", user,
                "quarkus.datasource.password", password);
    }
}
