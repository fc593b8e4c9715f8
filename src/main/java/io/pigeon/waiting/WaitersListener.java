package io.pigeon.waiting;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.pool.PoolClients;
import io.pigeon.rules.Rejection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.pubsub.PgSubscriber;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.pgclient.PgConnectOptions;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * The waiters' LISTEN on {@link QueueReady#CHANNEL}: one connection per database this replica holds waiters on
 * ({@code application_name} pigeon-waiters), opened before a queue there is first marked, so that no notice sent for
 * a mark it made can be missed while the connection is up. Each notice is handed on as it reads; after the connection
 * comes back, the database is handed on as heard again (what was sent meanwhile was not heard).
 */
final class WaitersListener {

    private static final Logger LOG = Logger.getLogger(QueueWaits.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long RECONNECT_MILLIS = 1000;

    /** What the listener hands on. */
    interface Heard {
        /** So many messages came free in the queue. */
        void noticed(SqlClient db, String project, String name, int messages);

        /** Listening on {@code db} again after its connection was lost: notices may have been missed. */
        void heardAgain(SqlClient db);
    }

    private final PoolClients poolClients;
    private final Vertx vertx;
    private final Heard heard;
    private final Map<SqlClient, Connection> connections = new ConcurrentHashMap<>();

    WaitersListener(PoolClients poolClients, Vertx vertx, Heard heard) {
        this.poolClients = poolClients;
        this.vertx = vertx;
        this.heard = heard;
    }

    /** Ready once this replica LISTENs on {@code db}; refused (unavailable) when it cannot. */
    Uni<Void> listening(SqlClient db) {
        Connection known = connections.get(db);
        if (known != null) {
            return known.ready;
        }
        return poolClients.holding(db).chain(database -> connections.computeIfAbsent(
                        db, client -> new Connection(database.client(), database.options()))
                .ready);
    }

    /** Closes every connection: the replica stops. */
    void close() {
        connections.values().forEach(connection -> connection.subscriber.closeAndForget());
        connections.clear();
    }

    /** The LISTEN connection of one database. */
    private final class Connection {
        final SqlClient db;
        final PgSubscriber subscriber;
        final Uni<Void> ready;

        Connection(Pool db, PgConnectOptions base) {
            this.db = db;
            PgConnectOptions options = new PgConnectOptions(base);
            options.addProperty("application_name", "pigeon-waiters");
            subscriber = PgSubscriber.subscriber(vertx, options);
            subscriber.reconnectPolicy(retries -> {
                LOG.warnf("Lost the connection that listens for messages coming free; reconnecting (waiting claims "
                        + "wake at their timers meanwhile)");
                return RECONNECT_MILLIS;
            });
            AtomicBoolean first = new AtomicBoolean(true);
            subscriber.channel(QueueReady.CHANNEL).handler(this::noticed).subscribeHandler(() -> {
                if (!first.compareAndSet(true, false)) {
                    heard.heardAgain(db); // listening again: what was sent meanwhile was not heard
                }
            });
            // The LISTEN is sent before connect() completes (the channel is known): ready means listening.
            ready = subscriber
                    .connect()
                    .onFailure()
                    .invoke(failure -> {
                        connections.remove(db, this);
                        subscriber.closeAndForget();
                    })
                    .onFailure()
                    .transform(failure -> new Rejection(
                            Rejection.Reason.UNAVAILABLE, "Cannot listen for messages on the queue's database."))
                    .memoize()
                    .indefinitely();
        }

        private void noticed(String payload) {
            try {
                JsonNode notice = JSON.readTree(payload);
                heard.noticed(
                        db,
                        notice.path("project").asText(),
                        notice.path("queue").asText(),
                        (int) Math.min(
                                Integer.MAX_VALUE, notice.path("messages").asLong(1)));
            } catch (Exception e) {
                LOG.warnf("A notice of messages coming free that does not read: %s", e.toString());
            }
        }
    }
}
