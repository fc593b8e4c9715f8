package io.pigeon.storage;

import io.vertx.mutiny.sqlclient.SqlClient;

/** A queue on the database that holds it: what requests sharing a statement (see {@link Coalescer}) have in common. */
public record QueueKey(SqlClient db, String project, String queue) {
}
