package io.pigeon.queue;

import io.pigeon.pool.QueueDatabases;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * A project's queue together with the database its statements run on: what a service resolves once per request, from
 * the name the edge made, and hands to every store method that acts on the queue as its first argument. Its
 * statements name the queue by {@link #project} and {@link #storedName}, so one project never reaches another's rows.
 *
 * <p>Equal handles are the same queue on the same client (the database's pool compares by identity). Requests sharing
 * a statement have their {@link #db} in common, not their queue (see {@link io.pigeon.storage.Coalescer}).
 *
 * <p>Inside a transaction, the handle is made on the transaction's connection: the store methods then run within it,
 * unchanged (one type for both, no store method twice).
 */
public record PlacedQueue(SqlClient db, String project, QueueName name) {

    /** The queue that a request reads or changes but does not create, on its database (a never placed one: home). */
    public static Uni<PlacedQueue> of(QueueDatabases databases, String project, QueueName name) {
        return databases.of(project, name.value()).map(db -> new PlacedQueue(db, project, name));
    }

    /**
     * The queue that a request may create, on its database: placed first if it never was, among the pools of
     * {@code flavor} (null: of no flavor).
     */
    public static Uni<PlacedQueue> forCreating(
            QueueDatabases databases, String project, QueueName name, String flavor) {
        return databases.forCreating(project, name.value(), flavor).map(db -> new PlacedQueue(db, project, name));
    }

    /** The name the queue is stored under: a queue's own, a topic's with its prefix. */
    public String storedName() {
        return name.value();
    }
}
