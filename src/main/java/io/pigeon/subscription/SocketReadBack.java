package io.pigeon.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.dispatch.NotificationFanOut;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.message.Message;
import io.pigeon.message.MessageRows;
import io.pigeon.message.UnreadableMessages;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.storage.DatabaseNotices;
import io.pigeon.subscription.SocketRoutes.QueueKey;
import io.pigeon.subscription.SocketRoutes.Route;
import io.pigeon.subscription.SocketSubscriptions.SocketInbox;
import io.pigeon.subscription.SocketSubscriptions.SocketNotification;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * The posts to one database's socket-subscribed queues, read back and pushed to this replica's sockets. A notice on
 * {@link NotificationFanOut#SOCKET_CHANNEL} names the ids a post stored; the noticed ids of queues this replica holds
 * sockets for are queued, read back in one statement per batch, opened as any reader's are, and each message is handed
 * to each subscribed socket of its queue, in order of id. One read at a time keeps them in order.
 *
 * <p>When the notices connection comes back after a loss, the posts made meanwhile were not noticed: before any later
 * notice, each queue is read from the lowest id it remembers ({@link SocketRoutes.Feed}), a page of
 * {@code read-back-batch} messages at a time, in order of id, and what was not pushed yet is pushed, each message only
 * to the sockets that had subscribed before it was posted. Ids pushed are remembered per queue, so nothing is pushed
 * twice (the notices that follow name ids the read-back pushed already): the read-back takes the ids it read out of the
 * waiting notices, and the queues' feeds forget none of them until a mark it sends on the channel once it has read is
 * heard, as every post it read committed before the mark and so had its notice heard first.
 */
final class SocketReadBack implements DatabaseNotices.Subscriber {

    private static final Logger LOG = Logger.getLogger(SocketPushes.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final SqlClient db;
    private final SocketRoutes routes;
    private final SocketSubscriptionStore store;
    private final MessageCipher cipher;
    private final UnreadableMessages unreadable;
    private final SocketSubscriptionSettings config;
    private final DatabaseNotices.Listening listening;
    /** Ready once the LISTEN is in place; refused (503) when the database cannot be listened to. */
    final Uni<Void> ready;

    private final WaitingNotices waiting;
    /** The connection came back: read back what was posted meanwhile before any later notice; guarded by this. */
    private boolean catchUpOwed;
    /** Notices wait (see {@link #holdNotices}) until {@link #readBackMissed}; guarded by this. */
    private boolean noticesHeld;

    private final AtomicBoolean reading = new AtomicBoolean();

    /** The field of the mark a read-back after a reconnect sends on the channel; no post notice has it. */
    private static final String MARK = "readBackMark";
    /** The mark the last read-back sent, to release the feeds it held when heard; null when none is awaited. */
    private volatile String awaitedMark;

    SocketReadBack(
            SqlClient db,
            SocketRoutes routes,
            SocketSubscriptionStore store,
            MessageCipher cipher,
            UnreadableMessages unreadable,
            SocketSubscriptionSettings config,
            DatabaseNotices notices,
            Runnable refused) {
        this.db = db;
        this.routes = routes;
        this.store = store;
        this.cipher = cipher;
        this.unreadable = unreadable;
        this.config = config;
        this.waiting = new WaitingNotices(config.maxWaiting());
        this.listening = notices.listen(db, NotificationFanOut.SOCKET_CHANNEL, this);
        this.ready = listening.ready().onFailure().invoke(refused).memoize().indefinitely();
    }

    void close() {
        listening.unlisten();
    }

    @Override
    public void reconnected() {
        readBackMissed();
    }

    /**
     * Posts made meanwhile were not noticed (the notices connection was lost, or a socket's lease had lapsed, see
     * {@link SocketLeases}): before any later notice, each queue is read back from its feed's floor.
     */
    void readBackMissed() {
        synchronized (this) {
            catchUpOwed = true;
            noticesHeld = false;
        }
        readBack();
    }

    /**
     * The notices heard from now on wait for {@link #readBackMissed}: a subscription whose lease may have lapsed is
     * being renewed or stored again, and a notice heard once it is live must not be pushed before the posts it missed.
     */
    void holdNotices() {
        synchronized (this) {
            noticesHeld = true;
        }
    }

    /** The notices held wait no more: nothing was learnt that they should wait for. */
    void releaseNotices() {
        synchronized (this) {
            noticesHeld = false;
        }
        readBack();
    }

    @Override
    public void noticed(String payload) {
        QueueKey key;
        long[] ids;
        try {
            JsonNode notice = JSON.readTree(payload);
            if (notice.has(MARK)) {
                // Another replica's, or an earlier read-back's (a later one holds the feeds again): left alone.
                String mark = notice.path(MARK).asText();
                if (mark.equals(awaitedMark)) {
                    waiting.addMark(mark);
                    readBack();
                }
                return;
            }
            key = new QueueKey(
                    db, notice.path("project").asText(), notice.path("queue").asText());
            JsonNode idNodes = notice.path("ids");
            ids = new long[idNodes.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = idNodes.get(i).asLong();
            }
        } catch (Exception e) {
            LOG.warnf("A post notice that does not read: %s", e.toString());
            return;
        }
        if (!routes.holds(key) || ids.length == 0) {
            return; // no socket of this replica is subscribed to that queue
        }
        if (!waiting.add(key, ids)) {
            LOG.warnf(
                    "%d posted messages wait to be pushed to sockets already "
                            + "(pigeon.socket-subscriptions.max-waiting): %d are not pushed",
                    waiting.count(), ids.length);
            return;
        }
        readBack();
    }

    /** Reads back the next batch of waiting ids unless a read-back runs; one at a time keeps them in order. */
    private void readBack() {
        synchronized (this) {
            if (noticesHeld) {
                return; // readBackMissed comes
            }
        }
        if (!reading.compareAndSet(false, true)) {
            return;
        }
        boolean catchUp;
        synchronized (this) {
            catchUp = catchUpOwed;
            catchUpOwed = false;
        }
        WaitingNotices.Batch batch = catchUp ? null : waiting.take(config.readBackBatch());
        List<Long> ids = catchUp ? List.of() : batch.ids();
        Uni<Void> read;
        if (catchUp) {
            read = catchUp();
        } else if (batch.mark() != null) {
            if (batch.mark().equals(awaitedMark)) {
                release();
            }
            nextBatch();
            return;
        } else if (ids.isEmpty()) {
            nextBatch();
            return;
        } else {
            read = store.readBack(
                            db,
                            batch.projects().toArray(String[]::new),
                            batch.names().toArray(String[]::new),
                            ids.toArray(Long[]::new))
                    .invoke(rows -> push(rows, batch.keys(), false))
                    .onFailure()
                    .invoke(failure -> LOG.warnf(
                            "Could not read back %d posted messages for sockets: %s", ids.size(), failure.toString()))
                    .replaceWithVoid();
        }
        read.onFailure().recoverWithNull().subscribe().with(done -> nextBatch());
    }

    private void nextBatch() {
        reading.set(false);
        boolean more;
        synchronized (this) {
            more = catchUpOwed;
        }
        if (!more) {
            more = !waiting.isEmpty();
        }
        if (more) {
            readBack();
        }
    }

    /** Reads back and pushes, queue after queue, what was posted to the queues of this database after their floors. */
    private Uni<Void> catchUp() {
        List<QueueKey> keys = routes.queuesOf(db);
        // Held until the mark sent after it is heard: the notices of posts it read may be heard after it.
        for (QueueKey key : keys) {
            SocketRoutes.Feed feed = routes.feed(key);
            if (feed != null) {
                feed.hold();
            }
        }
        String mark = UUID.randomUUID().toString();
        awaitedMark = mark;
        Uni<Void> all = Uni.createFrom().voidItem();
        for (QueueKey key : keys) {
            all = all.chain(() -> {
                SocketRoutes.Feed feed = routes.feed(key);
                return feed == null || feed.floor() == Long.MAX_VALUE
                        ? Uni.createFrom().voidItem()
                        : catchUp(key, feed.floor());
            });
        }
        return all.onTermination().call(() -> store.mark(
                        db,
                        NotificationFanOut.SOCKET_CHANNEL,
                        JSON.createObjectNode().put(MARK, mark).toString())
                .onFailure()
                .invoke(failure -> {
                    LOG.warnf(
                            "Could not mark the end of a read-back for sockets; a post it pushed may be pushed"
                                    + " again: %s",
                            failure.toString());
                    release();
                })
                .onFailure()
                .recoverWithNull());
    }

    /** The mark of the last read-back was heard (or could not be sent): its feeds remember as before. */
    private void release() {
        awaitedMark = null;
        for (QueueKey key : routes.queuesOf(db)) {
            SocketRoutes.Feed feed = routes.feed(key);
            if (feed != null) {
                feed.release();
            }
        }
    }

    /** One page of the messages of {@code key}'s queue after id {@code after}, then the next, until a short page. */
    private Uni<Void> catchUp(QueueKey key, long after) {
        return store.postedAfter(db, key.project(), key.storedName(), after, config.readBackBatch())
                .chain(rows -> {
                    long last = after;
                    long[] read = new long[rows.size()];
                    int at = 0;
                    for (Row row : rows) {
                        read[at++] = row.getLong("id");
                        last = Math.max(last, row.getLong("id"));
                    }
                    Arrays.sort(read);
                    // Before pushing them: the notice of a post read here may be waiting still (heard while the
                    // connection was back and this ran); it would push it again after the ids that followed it.
                    waiting.dropRead(key, read);
                    push(rows, Map.of(List.of(key.project(), key.storedName()), key), true);
                    return rows.size() < config.readBackBatch() || !routes.holds(key)
                            ? Uni.createFrom().voidItem()
                            : catchUp(key, last);
                })
                .onFailure()
                .invoke(failure -> LOG.warnf(
                        "Could not read back the posts to a socket-subscribed queue made while the notices "
                                + "connection was down; they are not pushed: %s",
                        failure.toString()));
    }

    /** Hands each message read back to each socket of this replica subscribed to its queue. */
    private void push(RowSet<Row> rows, Map<List<String>, QueueKey> keys, boolean caughtUp) {
        try {
            QueueKey current = null;
            List<Row> queueRows = new ArrayList<>();
            List<String> sockets = List.of();
            for (Row row : rows) {
                QueueKey key = keys.get(List.of(row.getString("project"), row.getString("name")));
                if (key == null) {
                    continue;
                }
                if (!key.equals(current)) {
                    pushToQueue(current, sockets, queueRows, caughtUp);
                    current = key;
                    queueRows = new ArrayList<>();
                    sockets = List.of(row.getArrayOfStrings("sockets"));
                }
                queueRows.add(row);
            }
            pushToQueue(current, sockets, queueRows, caughtUp);
        } catch (RuntimeException e) {
            LOG.warnf("Pushing posted messages to sockets failed: %s", e.toString());
        }
    }

    private void pushToQueue(QueueKey key, List<String> liveSubscribers, List<Row> rows, boolean caughtUp) {
        if (key == null || rows.isEmpty()) {
            return;
        }
        Set<Route> queueRoutes = routes.of(key);
        SocketRoutes.Feed feed = routes.feed(key);
        if (queueRoutes == null || feed == null) {
            return;
        }
        // Each socket once, however many of its routes match (a re-subscription being stored), in no set order.
        Map<SocketInbox, Route> inboxes = new IdentityHashMap<>();
        for (Route route : queueRoutes) {
            // What the socket's identity admits now decides, not what admitted the subscription: a token that
            // expired or was replaced receives nothing of a project it no longer grants.
            if (!route.socket.forgotten
                    && liveSubscribers.contains(route.socket.subscriber)
                    && route.socket.inbox.receivesFor(key.project())) {
                inboxes.putIfAbsent(route.socket.inbox, route);
            }
        }
        if (inboxes.isEmpty()) {
            return;
        }
        PlacedQueue queue = new PlacedQueue(db, key.project(), new QueueName(key.storedName()));
        MessageRows reader = MessageRows.of(cipher, queue);
        List<MessageRows.Unopened> unopened = new ArrayList<>(0);
        for (Row row : rows) {
            long id = row.getLong("id");
            if (!feed.firstPush(id)) {
                continue; // pushed already (read back after a reconnect, then noticed)
            }
            Message message = reader.open(row, unopened);
            if (message == null) {
                continue;
            }
            inboxes.forEach((inbox, route) -> {
                if (caughtUp && id <= route.since) {
                    return; // posted before this socket subscribed
                }
                try {
                    inbox.deliver(new SocketNotification(message.ttl(), message.body(), route.queue.name()));
                } catch (RuntimeException e) {
                    LOG.warnf("A socket refused a notification: %s", e.toString());
                }
            });
        }
        unreadable.leftOut(queue, unopened);
    }
}
