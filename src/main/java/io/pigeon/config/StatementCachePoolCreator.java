package io.pigeon.config;

import io.quarkus.reactive.pg.client.PgPoolCreator;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnectOptions;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the reactive pool from Quarkus's own options, with one change: the client caches prepared
 * statements up to {@link #STATEMENT_CACHE_SQL_LIMIT} characters instead of Vert.x's 2,048. A statement
 * longer than the limit is parsed and planned again on every execution, and Pigeon's statements are
 * whole operations in one round trip (the v2 post that creates its queue is about 2,500 characters): the
 * re-planning doubled the database time of every v2 post. Quarkus has no setting for the limit.
 *
 * <p>It also keeps the options the pool connects with, so that a connection of its own (the dispatcher's
 * LISTEN) reaches the same server in the same way (credentials, TLS, timeouts) without reading the datasource
 * settings a second time.
 */
@Singleton
public class StatementCachePoolCreator implements PgPoolCreator {

    /** The longest statement the client prepares once per connection; every store statement is shorter. */
    public static final int STATEMENT_CACHE_SQL_LIMIT = 16_384;

    private volatile PgConnectOptions connectOptions;

    @Override
    public Pool create(Input input) {
        List<SqlConnectOptions> servers = new ArrayList<>();
        for (PgConnectOptions options : input.pgConnectOptionsList()) {
            servers.add(options.setPreparedStatementCacheSqlLimit(STATEMENT_CACHE_SQL_LIMIT));
        }
        connectOptions = new PgConnectOptions(input.pgConnectOptionsList().get(0));
        return PgBuilder.pool()
                .with(input.poolOptions())
                .connectingTo(servers)
                .using(input.vertx())
                .build();
    }

    /** A copy of the options of the pool's (first) server; the pool must have been created. */
    public PgConnectOptions connectOptions() {
        PgConnectOptions options = connectOptions;
        if (options == null) {
            throw new IllegalStateException("The database pool has not been created yet");
        }
        return new PgConnectOptions(options);
    }
}
