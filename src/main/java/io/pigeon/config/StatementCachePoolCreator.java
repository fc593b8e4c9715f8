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
 * settings a second time; and the server settings each connection takes when opened ({@link SessionSettings}), so
 * that the pools' pools set the same.
 */
@Singleton
public class StatementCachePoolCreator implements PgPoolCreator {

    /** The longest statement the client prepares once per connection; every store statement is shorter. */
    public static final int STATEMENT_CACHE_SQL_LIMIT = 16_384;

    private volatile PgConnectOptions connectOptions;
    private volatile SessionSettings sessionSettings;

    @Override
    public Pool create(Input input) {
        List<SqlConnectOptions> servers = new ArrayList<>();
        SessionSettings settings = null;
        for (PgConnectOptions options : input.pgConnectOptionsList()) {
            SessionSettings these = SessionSettings.takenFrom(options);
            settings = settings == null ? these : settings;
            servers.add(options.setPreparedStatementCacheSqlLimit(STATEMENT_CACHE_SQL_LIMIT));
        }
        sessionSettings = settings;
        connectOptions = new PgConnectOptions(input.pgConnectOptionsList().get(0));
        return PgBuilder.pool()
                .with(input.poolOptions())
                .connectingTo(servers)
                .withConnectHandler(settings.onConnect())
                .using(input.vertx())
                .build();
    }

    /** The settings each connection of the pool takes when opened; the pool must have been created. */
    public SessionSettings sessionSettings() {
        SessionSettings settings = sessionSettings;
        if (settings == null) {
            throw new IllegalStateException("The database pool has not been created yet");
        }
        return settings;
    }

    /**
     * A copy of the options of the pool's (first) server, without the settings set after connecting; the pool must
     * have been created.
     */
    public PgConnectOptions connectOptions() {
        PgConnectOptions options = connectOptions;
        if (options == null) {
            throw new IllegalStateException("The database pool has not been created yet");
        }
        return new PgConnectOptions(options);
    }
}
