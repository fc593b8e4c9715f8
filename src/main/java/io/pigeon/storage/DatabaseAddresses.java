package io.pigeon.storage;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.pgclient.PgConnectOptions;

/**
 * Where a connection of its own to a database that holds queues connects, found from the client its queues are read
 * through. Declared here, below the pools that answer it, so that {@link DatabaseNotices} opens its LISTEN connection
 * to the same server in the same way as the database's pool (credentials, TLS, timeouts) without knowing the pools.
 */
public interface DatabaseAddresses {

    /** How a connection of its own reaches a database, and how a log line names it. */
    record Address(String description, PgConnectOptions options) {}

    /**
     * The address of the database whose client is {@code db} (its options shared: copy them before changing them);
     * fails (503) when no database has that client any longer, as when its pool was moved.
     */
    Uni<Address> addressOf(SqlClient db);
}
