package io.pigeon.pool;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.jboss.logging.Logger;

/**
 * Brings a pool's database to Pigeon's schema: the same Flyway migrations as the configured database, run when the
 * pool is registered (so that registering is also Zaqar's check that the server can be reached). The migrations are
 * found as the application's own Flyway finds them (its configuration is copied), so this works in a native image.
 */
@ApplicationScoped
public class PoolSchemas {

    private static final Logger LOG = Logger.getLogger(PoolSchemas.class);
    /** How long a server may take to accept a connection, and the whole migration to finish. */
    static final int CONNECT_TIMEOUT_SECONDS = 5;
    static final Duration MIGRATION_DEADLINE = Duration.ofSeconds(60);

    private final Flyway application;

    public PoolSchemas(Flyway application) {
        this.application = application;
    }

    /** Migrates the pool's database; fails when it cannot be reached or migrated (the cause is logged, redacted). */
    public Uni<Void> migrate(PoolUri uri) {
        return Uni.createFrom().<Void>item(() -> {
            String jdbc = uri.jdbcUrl() + (uri.jdbcUrl().contains("?") ? "&" : "?") + "connectTimeout=" + CONNECT_TIMEOUT_SECONDS
                    + "&socketTimeout=" + MIGRATION_DEADLINE.toSeconds();
            Flyway.configure(Thread.currentThread().getContextClassLoader())
                    .configuration(application.getConfiguration())
                    .dataSource(jdbc, uri.user(), uri.password())
                    .connectRetries(0)
                    .load()
                    .migrate();
            return null;
        })
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .ifNoItem().after(MIGRATION_DEADLINE).fail()
                .onFailure().invoke(failure -> LOG.warnf("Pool %s cannot be reached or migrated: %s", uri.redacted(),
                        describe(failure)));
    }

    /** The failure without anything that could carry the password (the driver's messages do not; the URL is not used). */
    private static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
