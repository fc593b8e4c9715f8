package io.pigeon.waiting;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.storage.DatabaseNotices;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * The waiters' subscription to {@link QueueReady#CHANNEL} on the replica's one notices connection of each database
 * ({@link DatabaseNotices}), made before a queue there is first marked, so that no notice sent for a mark this
 * replica made can be missed while the connection is up; kept while the replica runs. Each notice is handed on as it
 * reads. After the connection comes back from a loss, the database is handed on as heard again: what was sent
 * meanwhile was not heard, so every waiter of that database looks at its queue again.
 */
final class WaitersListener {

    private static final Logger LOG = Logger.getLogger(QueueWaits.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the listener hands on. */
    interface Heard {
        /** So many messages came free in the queue. */
        void noticed(SqlClient db, String project, String name, int messages);

        /** Listening on {@code db} again after its connection was lost: notices may have been missed. */
        void heardAgain(SqlClient db);
    }

    private final DatabaseNotices notices;
    private final Heard heard;
    private final Map<SqlClient, DatabaseNotices.Listening> subscriptions = new ConcurrentHashMap<>();

    WaitersListener(DatabaseNotices notices, Heard heard) {
        this.notices = notices;
        this.heard = heard;
    }

    /** Ready once this replica LISTENs on {@code db}; refused (unavailable) when it cannot. */
    Uni<Void> listening(SqlClient db) {
        DatabaseNotices.Listening listening = subscriptions.computeIfAbsent(db, this::subscribe);
        return listening.ready().onFailure().invoke(failure -> {
            // Refused (the database cannot be reached): the next waiter there subscribes again.
            subscriptions.remove(db, listening);
            listening.unlisten();
        });
    }

    private DatabaseNotices.Listening subscribe(SqlClient db) {
        return notices.listen(db, QueueReady.CHANNEL, new DatabaseNotices.Subscriber() {
            @Override
            public void noticed(String payload) {
                heardNotice(db, payload);
            }

            @Override
            public void reconnected() {
                heard.heardAgain(db); // listening again: what was sent meanwhile was not heard
            }
        });
    }

    private void heardNotice(SqlClient db, String payload) {
        try {
            JsonNode notice = JSON.readTree(payload);
            heard.noticed(
                    db, notice.path("project").asText(), notice.path("queue").asText(), (int)
                            Math.min(Integer.MAX_VALUE, notice.path("messages").asLong(1)));
        } catch (Exception e) {
            LOG.warnf("A notice of messages coming free that does not read: %s", e.toString());
        }
    }

    /** Ends every subscription: the replica stops. */
    void close() {
        subscriptions.values().forEach(DatabaseNotices.Listening::unlisten);
        subscriptions.clear();
    }
}
