package io.pigeon.pool;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.flywaydb.core.Flyway;
import org.jboss.logging.Logger;

/**
 * Brings a pool's database to Pigeon's schema: the same Flyway migrations as the configured database, run when the
 * pool is registered (so that registering is also Zaqar's check that the server can be reached) and again at every
 * start ({@link PoolUpgrades}). The migrations are found as the application's own Flyway finds them (its configuration
 * is copied), so this works in a native image.
 *
 * <p>Flyway takes a PostgreSQL advisory lock on the pool's database while it migrates (Flyway 12's
 * {@code PostgreSQLAdvisoryLockTemplate}, retried per its {@code lockRetryCount}), so replicas that start together
 * apply each migration once: the others wait, then find nothing left to apply.
 */
@ApplicationScoped
public class PoolSchemas {

    private static final Logger LOG = Logger.getLogger(PoolSchemas.class);
    /** How long a server may take to accept a connection, and the whole migration to finish. */
    static final int CONNECT_TIMEOUT_SECONDS = 5;

    static final Duration MIGRATION_DEADLINE = Duration.ofSeconds(60);
    /** A pool's delivery group ids start at its block number shifted by this many bits (2^40 ids per block). */
    static final int ID_BLOCK_BITS = 40;

    private static final String MOVE_GROUP_IDS =
            """
            SELECT setval(s, greatest(coalesce(pg_sequence_last_value(s), 0), ?))
            FROM (SELECT pg_get_serial_sequence('dispatch_groups', 'id')::regclass AS s) AS sequence""";
    /** Which database this is, whatever address reached it: its server's identifier and its name. */
    static final String IDENTITY =
            "SELECT (SELECT system_identifier FROM pg_control_system())::text || '/' || current_database()";

    private final Flyway application;

    public PoolSchemas(Flyway application) {
        this.application = application;
    }

    /**
     * Migrates the pool's database and makes its next delivery group ids at least {@code firstGroupId}, unless it is
     * the database {@code refused} names (its {@link #IDENTITY}); fails when it cannot be reached or migrated (the
     * cause is logged, redacted). True when migrated, false when it is the refused one (nothing done).
     */
    public Uni<Boolean> migrate(PoolUri uri, long firstGroupId, String refused) {
        return migrate(uri, refused, firstGroupId);
    }

    /**
     * Migrates an already registered pool's database, as {@link #migrate(PoolUri, long, String)} does, but leaves its
     * delivery group ids where they are (its block was given when it was registered).
     */
    public Uni<Boolean> upgrade(PoolUri uri, String refused) {
        return migrate(uri, refused, null);
    }

    /** {@code firstGroupId} null: the group ids are not moved (0 would not do: a sequence never used starts at 1). */
    private Uni<Boolean> migrate(PoolUri uri, String refused, Long firstGroupId) {
        return Uni.createFrom()
                .item(() -> {
                    Flyway pool = Flyway.configure(Thread.currentThread().getContextClassLoader())
                            .configuration(application.getConfiguration())
                            .dataSource(
                                    new PoolDataSource(uri, CONNECT_TIMEOUT_SECONDS, MIGRATION_DEADLINE.toSeconds()))
                            .connectRetries(0)
                            .load();
                    try (Connection connection =
                            pool.getConfiguration().getDataSource().getConnection()) {
                        try (Statement identity = connection.createStatement();
                                ResultSet row = identity.executeQuery(IDENTITY)) {
                            row.next();
                            if (row.getString(1).equals(refused)) {
                                return false;
                            }
                        }
                        pool.migrate();
                        if (firstGroupId != null) {
                            try (PreparedStatement move = connection.prepareStatement(MOVE_GROUP_IDS)) {
                                move.setLong(1, firstGroupId);
                                move.executeQuery().close();
                            }
                        }
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                    return true;
                })
                .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
                .ifNoItem()
                .after(MIGRATION_DEADLINE)
                .fail()
                .onFailure()
                .invoke(failure ->
                        LOG.warnf("Pool %s cannot be reached or migrated: %s", uri.redacted(), describe(failure)));
    }

    /**
     * The failure without anything that could carry the password (the driver's messages do not; they name only the
     * checked host, port, database and user).
     */
    private static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
