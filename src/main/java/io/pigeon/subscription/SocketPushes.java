package io.pigeon.subscription;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.config.PigeonConfig;
import io.pigeon.dispatch.NotificationFanOut;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.message.Message;
import io.pigeon.message.MessageRows;
import io.pigeon.message.UnreadableMessages;
import io.pigeon.pool.PoolClients;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.quota.Quotas;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.PerDatabaseRenewal;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.pubsub.PgSubscriber;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.pgclient.PgConnectOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * Sockets subscribed to queues, pushed every message posted to them on any replica, through the queue's own database.
 *
 * <p>A socket's subscription is a row of its queue's subscriptions whose subscriber is {@value #SUBSCRIBER_PREFIX}
 * followed by a random UUID minted for the socket here: a scheme HTTP refuses, so no HTTP client can make or change a
 * row into one. The row carries a lease ({@code socket_lease_until}) that this replica renews every
 * {@code pigeon.socket-subscriptions.renewal}; the sweeper deletes the rows of a replica that stopped renewing them.
 *
 * <p>A post to a queue with a live socket subscription sends, on {@link NotificationFanOut#SOCKET_CHANNEL}, the ids
 * it stored (see there). This replica LISTENs on one connection per database where it holds a subscribed socket,
 * opened before its first subscription there is stored (so no post that sees the subscription can be missed while the
 * connection stays up). A notice for a queue this replica holds sockets for is queued; the queued ids of one database
 * are read back in one statement per batch, bodies opened as any reader's are, and each message is handed to each
 * subscribed socket of its queue, in order of id.
 *
 * <p>What this replica registered decides who gets what: the socket's subscriber value, under the queue's database,
 * project and stored name. A stored subscriber string is only compared for equality with that value (which the
 * read-back returns among the queue's live socket subscribers, so a subscription deleted by id, with its queue or by
 * the sweeper stops its pushes at once); it is never parsed to find a socket. Registering before the row is written
 * means a post that sees the row always finds the socket registered: an id known only once the insert answers could
 * not promise that. What the socket's identity admits now ({@link SocketInbox#receivesFor}) is asked on every push,
 * not only when the subscription was made: a token that expired or was replaced gets nothing of a project it no longer
 * grants, even before {@link #forgetRevoked} has deleted those rows.
 */
@ApplicationScoped
public class SocketPushes implements SocketSubscriptions {

    private static final Logger LOG = Logger.getLogger(SocketPushes.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How every socket subscriber value starts; HTTP refuses the scheme. */
    public static final String SUBSCRIBER_PREFIX = "socket:";

    private static final long RECONNECT_MILLIS = 1000;

    /**
     * Whether a stored subscription is a socket's. Only for leaving it out (no HTTP request can give such a value);
     * never to find a socket.
     */
    static boolean isSocket(Subscription subscription) {
        return subscription.subscriber().startsWith(SUBSCRIBER_PREFIX);
    }

    /** A queue as this replica registers sockets for it: the same queue is the same client, project and name. */
    private record QueueKey(SqlClient db, String project, String storedName) {}

    /** One socket's subscription to one queue; {@code id} is known once its row is stored. */
    private static final class Route {
        final SocketState socket;
        final QueueKey key;
        final QueueName queue;
        volatile long id;

        Route(SocketState socket, QueueKey key, QueueName queue) {
            this.socket = socket;
            this.key = key;
            this.queue = queue;
        }
    }

    /** What this replica knows of one socket. */
    private static final class SocketState {
        final SocketInbox inbox;
        final String subscriber = SUBSCRIBER_PREFIX + UUID.randomUUID();
        /** Its subscriptions, stored or being stored, by queue; guarded by {@code this}. */
        final Map<QueueKey, Route> routes = new HashMap<>();
        /** Subscriptions being stored now; guarded by {@code this}. */
        int storing;

        volatile boolean forgotten;

        SocketState(SocketInbox inbox) {
            this.inbox = inbox;
        }
    }

    private final SocketSubscriptionStore store;
    private final SubscriptionService subscriptions;
    private final QueueDatabases databases;
    private final PoolClients poolClients;
    private final MessageCipher cipher;
    private final UnreadableMessages unreadable;
    private final Vertx vertx;
    private final PigeonConfig.SocketSubscriptions config;
    private final String perSocketRefusal;
    private final String perProjectRefusal;

    /** Sockets by their id. */
    private final Map<String, SocketState> sockets = new ConcurrentHashMap<>();
    /**
     * Inboxes forgotten already: a subscription that arrives after its socket's forget is refused, so that no row is
     * left renewed for a socket that is gone. Weak: an inbox the transport dropped leaves it.
     */
    private final Map<SocketInbox, Boolean> forgotten = Collections.synchronizedMap(new WeakHashMap<>());
    /** The subscriptions of each queue this replica holds sockets for. */
    private final Map<QueueKey, Set<Route>> routes = new ConcurrentHashMap<>();
    /** One LISTEN connection per database this replica held a subscribed socket on. */
    private final Map<SqlClient, Listener> listeners = new ConcurrentHashMap<>();

    public SocketPushes(
            SocketSubscriptionStore store,
            SubscriptionService subscriptions,
            QueueDatabases databases,
            PoolClients poolClients,
            MessageCipher cipher,
            UnreadableMessages unreadable,
            Vertx vertx,
            PigeonConfig config) {
        this.store = store;
        this.subscriptions = subscriptions;
        this.databases = databases;
        this.poolClients = poolClients;
        this.cipher = cipher;
        this.unreadable = unreadable;
        this.vertx = vertx;
        this.config = config.socketSubscriptions();
        this.perSocketRefusal = "The socket has " + this.config.maxPerSocket() + " subscriptions, its limit "
                + "(pigeon.socket-subscriptions.max-per-socket).";
        this.perProjectRefusal = "The project has " + this.config.maxPerProject() + " live socket subscriptions, its "
                + "limit (pigeon.socket-subscriptions.max-per-project).";
    }

    @Override
    public Uni<Long> subscribe(String project, QueueName queue, SubscriptionService.Fields fields, SocketInbox inbox) {
        return Uni.createFrom().deferred(() -> {
            int ttl = subscriptions.ttlToCreate(fields);
            String options = subscriptions.optionsToCreate(fields);
            SocketState socket = sockets.computeIfAbsent(inbox.socketId(), id -> new SocketState(inbox));
            synchronized (socket) {
                // Checked after the state is made: a forget that runs from here on finds it and marks it.
                if (socket.forgotten || socket.inbox != inbox || forgotten.containsKey(inbox)) {
                    if (socket.inbox == inbox && socket.routes.isEmpty() && socket.storing == 0) {
                        sockets.remove(inbox.socketId(), socket);
                    }
                    throw new IllegalStateException("socket " + inbox.socketId() + " is closed or reused");
                }
                if (socket.routes.size() + socket.storing >= config.maxPerSocket()) {
                    throw new Rejection(Rejection.Reason.QUOTA_REACHED, perSocketRefusal);
                }
                socket.storing++;
            }
            return PlacedQueue.forCreating(databases, project, queue, null)
                    .chain(placed -> listening(placed.db()).replaceWith(placed))
                    .chain(placed -> stored(socket, placed, ttl, options))
                    .onTermination()
                    .invoke(() -> {
                        synchronized (socket) {
                            socket.storing--;
                        }
                    })
                    .onFailure()
                    .transform(failure -> {
                        Rejection quota = Quotas.refusal(failure);
                        return quota != null ? quota : failure;
                    });
        });
    }

    /** Registers the route, then stores the row; the route is dropped again if the row is not stored. */
    private Uni<Long> stored(SocketState socket, PlacedQueue placed, int ttl, String options) {
        QueueKey key = new QueueKey(placed.db(), placed.project(), placed.storedName());
        Route route = new Route(socket, key, placed.name());
        routes.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(route);
        return store.create(
                        placed,
                        socket.subscriber,
                        ttl,
                        options,
                        config.lease().toSeconds(),
                        config.maxPerProject(),
                        perProjectRefusal)
                .onFailure()
                .invoke(failure -> unroute(route))
                .chain(created -> {
                    if (created.isEmpty()) {
                        unroute(route);
                        return Uni.createFrom().failure(SubscriptionService.duplicate());
                    }
                    long id = created.get();
                    route.id = id;
                    Route replaced;
                    boolean dropped;
                    synchronized (socket) {
                        // Checked under the socket's lock, as forgetRevoked reads its routes: a token replaced while
                        // the row was being stored is seen either here or there.
                        dropped = socket.forgotten || !socket.inbox.receivesFor(placed.project());
                        // A row replaced (its ttl or lease had run out) keeps its id: the route before goes.
                        replaced = dropped ? null : socket.routes.put(key, route);
                    }
                    if (replaced != null && replaced != route) {
                        unroute(replaced);
                    }
                    if (dropped) {
                        // The socket closed, or its token stopped granting the project, while its row was being
                        // stored: the row goes too.
                        unroute(route);
                        return store.forget(placed.db(), List.of(id)).replaceWith(id);
                    }
                    return Uni.createFrom().item(id);
                });
    }

    private void unroute(Route route) {
        routes.computeIfPresent(route.key, (key, set) -> {
            set.remove(route);
            return set.isEmpty() ? null : set;
        });
    }

    @Override
    public Uni<Void> forget(SocketInbox inbox) {
        return Uni.createFrom().deferred(() -> {
            forgotten.put(inbox, Boolean.TRUE);
            SocketState socket = sockets.get(inbox.socketId());
            if (socket == null || socket.inbox != inbox) {
                return Uni.createFrom().voidItem();
            }
            List<Route> held;
            synchronized (socket) {
                socket.forgotten = true;
                held = new ArrayList<>(socket.routes.values());
                socket.routes.clear();
            }
            sockets.remove(inbox.socketId(), socket);
            return deleteRows(held);
        });
    }

    @Override
    public Uni<Void> forgetRevoked(SocketInbox inbox) {
        return Uni.createFrom().deferred(() -> {
            SocketState socket = sockets.get(inbox.socketId());
            if (socket == null || socket.inbox != inbox) {
                return Uni.createFrom().voidItem();
            }
            List<Route> revoked = new ArrayList<>();
            synchronized (socket) {
                socket.routes.values().removeIf(route -> {
                    boolean gone = !inbox.receivesFor(route.key.project());
                    if (gone) {
                        revoked.add(route);
                    }
                    return gone;
                });
            }
            return deleteRows(revoked);
        });
    }

    /** Stops pushing to {@code routes}, then deletes their rows, one statement per database. */
    private Uni<Void> deleteRows(List<Route> routes) {
        Map<SqlClient, List<Long>> byDatabase = new IdentityHashMap<>();
        for (Route route : routes) {
            unroute(route);
            byDatabase.computeIfAbsent(route.key.db(), db -> new ArrayList<>()).add(route.id);
        }
        List<Uni<Void>> deletes = new ArrayList<>();
        byDatabase.forEach((db, ids) -> deletes.add(store.forget(db, ids)));
        return deletes.isEmpty()
                ? Uni.createFrom().voidItem()
                : Uni.join().all(deletes).andCollectFailures().replaceWithVoid();
    }

    /** Renews the leases of the subscriptions this replica holds, one statement per database. */
    @Scheduled(
            every = "${pigeon.socket-subscriptions.renewal}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    Uni<Void> renewLeases() {
        List<Route> held = new ArrayList<>();
        for (Set<Route> queueRoutes : routes.values()) {
            for (Route route : queueRoutes) {
                if (route.id > 0) {
                    held.add(route);
                }
            }
        }
        return PerDatabaseRenewal.renew(
                held,
                route -> route.key.db(),
                (db, part) -> store.renew(
                                db,
                                part.stream().map(route -> route.id).distinct().toList(),
                                config.lease().toSeconds())
                        .invoke(kept -> part.forEach(route -> {
                            if (!kept.contains(route.id)) {
                                // Deleted meanwhile (by id, with its queue, or swept): the socket is no longer
                                // subscribed.
                                dropDeleted(route);
                            }
                        })),
                LOG,
                "the leases of %d socket subscriptions");
    }

    private void dropDeleted(Route route) {
        SocketState socket = route.socket;
        synchronized (socket) {
            socket.routes.remove(route.key, route);
        }
        unroute(route);
    }

    /** Ready once this replica LISTENs on {@code db}. */
    private Uni<Void> listening(SqlClient db) {
        Listener known = listeners.get(db);
        if (known != null) {
            return known.ready;
        }
        return poolClients.holding(db).chain(database -> listeners.computeIfAbsent(
                        db, client -> new Listener(database.client(), database.options()))
                .ready);
    }

    void stop(@Observes ShutdownEvent stopping) {
        listeners.values().forEach(Listener::close);
        listeners.clear();
    }

    /** A run of ids posted to one queue, some of them taken already. */
    private static final class Notice {
        final QueueKey key;
        final long[] ids;
        int next;

        Notice(QueueKey key, long[] ids) {
            this.key = key;
            this.ids = ids;
        }
    }

    /** The LISTEN connection of one database, and the ids noticed there that wait to be read back. */
    private final class Listener {
        final Pool db;
        final PgSubscriber subscriber;
        final Uni<Void> ready;
        /** Guarded by {@code this}. */
        final ArrayDeque<Notice> waiting = new ArrayDeque<>();
        /** Guarded by {@code this}. */
        int waitingIds;

        final AtomicBoolean reading = new AtomicBoolean();

        Listener(Pool db, PgConnectOptions base) {
            this.db = db;
            PgConnectOptions options = new PgConnectOptions(base);
            options.addProperty("application_name", "pigeon-sockets");
            subscriber = PgSubscriber.subscriber(vertx, options);
            subscriber.reconnectPolicy(retries -> {
                LOG.warnf("Lost the connection that listens for posts to socket-subscribed queues; reconnecting "
                        + "(posts meanwhile are not pushed)");
                return RECONNECT_MILLIS;
            });
            subscriber.channel(NotificationFanOut.SOCKET_CHANNEL).handler(this::noticed);
            // The LISTEN is sent before connect() completes (the channel is known): ready means listening.
            ready = subscriber
                    .connect()
                    .onFailure()
                    .invoke(failure -> {
                        listeners.remove(db, this);
                        subscriber.closeAndForget();
                    })
                    .onFailure()
                    .transform(failure -> new Rejection(
                            Rejection.Reason.UNAVAILABLE, "Cannot listen for posts on the queue's database."))
                    .memoize()
                    .indefinitely();
        }

        void close() {
            subscriber.closeAndForget();
        }

        private void noticed(String payload) {
            QueueKey key;
            long[] ids;
            try {
                JsonNode notice = JSON.readTree(payload);
                key = new QueueKey(
                        db,
                        notice.path("project").asText(),
                        notice.path("queue").asText());
                JsonNode idNodes = notice.path("ids");
                ids = new long[idNodes.size()];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = idNodes.get(i).asLong();
                }
            } catch (Exception e) {
                LOG.warnf("A post notice that does not read: %s", e.toString());
                return;
            }
            if (!routes.containsKey(key) || ids.length == 0) {
                return; // no socket of this replica is subscribed to that queue
            }
            synchronized (this) {
                if (waitingIds + ids.length > config.maxWaiting()) {
                    LOG.warnf(
                            "%d posted messages wait to be pushed to sockets already "
                                    + "(pigeon.socket-subscriptions.max-waiting): %d are not pushed",
                            waitingIds, ids.length);
                    return;
                }
                waiting.add(new Notice(key, ids));
                waitingIds += ids.length;
            }
            readBack();
        }

        /** Reads back the next batch of waiting ids unless a read-back runs; one at a time keeps them in order. */
        private void readBack() {
            if (!reading.compareAndSet(false, true)) {
                return;
            }
            List<String> projects = new ArrayList<>();
            List<String> names = new ArrayList<>();
            List<Long> ids = new ArrayList<>();
            Map<List<String>, QueueKey> keys = new LinkedHashMap<>();
            synchronized (this) {
                while (!waiting.isEmpty() && ids.size() < config.readBackBatch()) {
                    Notice notice = waiting.peek();
                    while (notice.next < notice.ids.length && ids.size() < config.readBackBatch()) {
                        projects.add(notice.key.project());
                        names.add(notice.key.storedName());
                        ids.add(notice.ids[notice.next++]);
                        waitingIds--;
                    }
                    keys.put(List.of(notice.key.project(), notice.key.storedName()), notice.key);
                    if (notice.next == notice.ids.length) {
                        waiting.poll();
                    }
                }
            }
            if (ids.isEmpty()) {
                reading.set(false);
                synchronized (this) {
                    if (waiting.isEmpty()) {
                        return;
                    }
                }
                readBack();
                return;
            }
            store.readBack(db, projects.toArray(String[]::new), names.toArray(String[]::new), ids.toArray(Long[]::new))
                    .subscribe()
                    .with(
                            rows -> {
                                try {
                                    push(rows, keys);
                                } catch (RuntimeException e) {
                                    LOG.warnf("Pushing posted messages to sockets failed: %s", e.toString());
                                }
                                nextBatch();
                            },
                            failure -> {
                                LOG.warnf(
                                        "Could not read back %d posted messages for sockets: %s",
                                        ids.size(), failure.toString());
                                nextBatch();
                            });
        }

        private void nextBatch() {
            reading.set(false);
            boolean more;
            synchronized (this) {
                more = !waiting.isEmpty();
            }
            if (more) {
                readBack();
            }
        }

        /** Hands each message read back to each socket of this replica subscribed to its queue. */
        private void push(RowSet<Row> rows, Map<List<String>, QueueKey> keys) {
            QueueKey current = null;
            List<Row> queueRows = new ArrayList<>();
            List<String> sockets = List.of();
            for (Row row : rows) {
                QueueKey key = keys.get(List.of(row.getString("project"), row.getString("name")));
                if (key == null) {
                    continue;
                }
                if (!key.equals(current)) {
                    pushToQueue(current, sockets, queueRows);
                    current = key;
                    queueRows = new ArrayList<>();
                    sockets = List.of(row.getArrayOfStrings("sockets"));
                }
                queueRows.add(row);
            }
            pushToQueue(current, sockets, queueRows);
        }

        private void pushToQueue(QueueKey key, List<String> liveSubscribers, List<Row> rows) {
            if (key == null || rows.isEmpty()) {
                return;
            }
            Set<Route> queueRoutes = routes.get(key);
            if (queueRoutes == null) {
                return;
            }
            // Each socket once, however many of its routes match (a re-subscription being stored), in no set order.
            Map<SocketInbox, QueueName> inboxes = new IdentityHashMap<>();
            for (Route route : queueRoutes) {
                // What the socket's identity admits now decides, not what admitted the subscription: a token that
                // expired or was replaced receives nothing of a project it no longer grants.
                if (!route.socket.forgotten
                        && liveSubscribers.contains(route.socket.subscriber)
                        && route.socket.inbox.receivesFor(key.project())) {
                    inboxes.putIfAbsent(route.socket.inbox, route.queue);
                }
            }
            if (inboxes.isEmpty()) {
                return;
            }
            PlacedQueue queue = new PlacedQueue(db, key.project(), new QueueName(key.storedName()));
            MessageRows reader = MessageRows.of(cipher, queue);
            List<MessageRows.Unopened> unopened = new ArrayList<>(0);
            List<Message> messages = new ArrayList<>(rows.size());
            for (Row row : rows) {
                Message message = reader.open(row, unopened);
                if (message != null) {
                    messages.add(message);
                }
            }
            unreadable.leftOut(queue, unopened);
            for (Message message : messages) {
                inboxes.forEach((inbox, name) -> {
                    try {
                        inbox.deliver(new SocketNotification(message.ttl(), message.body(), name.name()));
                    } catch (RuntimeException e) {
                        LOG.warnf("A socket refused a notification: %s", e.toString());
                    }
                });
            }
        }
    }

    /** How many sockets this replica holds subscriptions for (for tests and metrics). */
    public int socketsHeld() {
        return sockets.size();
    }
}
