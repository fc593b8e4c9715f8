package io.pigeon.testing;

import io.pigeon.pool.PoolUri;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import org.flywaydb.core.Flyway;

/**
 * For the upgrade tests: a database of the tests' server brought to a chosen schema version with the application's own
 * migrations, and a pool on it, so that a test can store rows as an older version did and then migrate further.
 */
public final class Migrations {

    private Migrations() {}

    /** Migrates the database at {@code uri} up to {@code target} ("latest" for all) with the application's settings. */
    public static void migrate(Flyway application, PoolUri uri, String target) {
        Flyway.configure(Thread.currentThread().getContextClassLoader())
                .configuration(application.getConfiguration())
                .dataSource(uri.jdbcUrl(), uri.user(), uri.password())
                .target(target)
                .load()
                .migrate();
    }

    /** A pool on the database at {@code uri}; the caller closes it. */
    public static Pool open(Vertx vertx, PoolUri uri) {
        return Pool.newInstance(PgBuilder.pool()
                .connectingTo(PgConnectOptions.fromUri(uri.text()))
                .using(vertx.getDelegate())
                .build());
    }
}
