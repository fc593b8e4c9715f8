package io.pigeon.subscription;

import io.pigeon.dispatch.NotificationFanOut;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.message.UnreadableMessages;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.quota.Quotas;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.DatabaseNotices;
import io.pigeon.subscription.SocketRoutes.QueueKey;
import io.pigeon.subscription.SocketRoutes.Route;
import io.pigeon.subscription.SocketRoutes.Socket;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * Sockets subscribed to queues, pushed every message posted to them on any replica, through the queue's own database.
 *
 * <p>A socket's subscription is a row of its queue's subscriptions whose subscriber is {@value #SUBSCRIBER_PREFIX}
 * followed by a random UUID minted for the socket here: a scheme HTTP refuses, so no HTTP client can make or change a
 * row into one. The row carries a lease ({@code socket_lease_until}) that this replica renews every
 * {@code pigeon.socket-subscriptions.renewal}; the sweeper deletes the rows of a replica that stopped renewing them.
 * A row swept while this replica was alive but could not reach the database is stored again ({@link SocketLeases}).
 *
 * <p>A post to a queue with a live socket subscription sends, on {@link NotificationFanOut#SOCKET_CHANNEL}, the ids
 * it stored (see there). This replica subscribes to those notices through {@link DatabaseNotices} on each database
 * where it holds a subscribed socket, before its first subscription there is stored (so no post that sees the
 * subscription can be missed while the connection stays up); a {@link SocketReadBack} per database reads the noticed
 * messages back and pushes them, and after a reconnect reads back what was posted while the connection was down.
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

    /** How every socket subscriber value starts; HTTP refuses the scheme. */
    public static final String SUBSCRIBER_PREFIX = "socket:";

    /**
     * Whether a stored subscription is a socket's. Only for leaving it out (no HTTP request can give such a value);
     * never to find a socket.
     */
    static boolean isSocket(Subscription subscription) {
        return subscription.subscriber().startsWith(SUBSCRIBER_PREFIX);
    }

    private final SocketSubscriptionStore store;
    private final SubscriptionService subscriptions;
    private final QueueDatabases databases;
    private final DatabaseNotices notices;
    private final MessageCipher cipher;
    private final UnreadableMessages unreadable;
    private final SocketSubscriptionSettings config;
    private final String perSocketRefusal;
    private final String perProjectRefusal;

    /** Sockets by their id. */
    private final Map<String, Socket> sockets = new ConcurrentHashMap<>();
    /**
     * Inboxes forgotten already: a subscription that arrives after its socket's forget is refused, so that no row is
     * left renewed for a socket that is gone. Weak: an inbox the transport dropped leaves it.
     */
    private final Map<SocketInbox, Boolean> forgotten = Collections.synchronizedMap(new WeakHashMap<>());
    /** The subscriptions of each queue this replica holds sockets for. */
    private final SocketRoutes routes = new SocketRoutes();
    /** The read-back of each database this replica held a subscribed socket on, each subscribed to its notices. */
    private final Map<SqlClient, SocketReadBack> readBacks = new ConcurrentHashMap<>();

    private final SocketLeases leases;

    public SocketPushes(
            SocketSubscriptionStore store,
            SubscriptionService subscriptions,
            QueueDatabases databases,
            DatabaseNotices notices,
            MessageCipher cipher,
            UnreadableMessages unreadable,
            SocketSubscriptionSettings socketSubscriptionSettings) {
        this.store = store;
        this.subscriptions = subscriptions;
        this.databases = databases;
        this.notices = notices;
        this.cipher = cipher;
        this.unreadable = unreadable;
        this.config = socketSubscriptionSettings;
        this.perSocketRefusal = "The socket has " + this.config.maxPerSocket() + " subscriptions, its limit "
                + "(pigeon.socket-subscriptions.max-per-socket).";
        this.perProjectRefusal = "The project has " + this.config.maxPerProject() + " live socket subscriptions, its "
                + "limit (pigeon.socket-subscriptions.max-per-project).";
        this.leases = new SocketLeases(
                store,
                routes,
                config,
                SocketPushes::holds,
                this::dropDeleted,
                new ReadBacksMissing(),
                System::nanoTime);
    }

    @Override
    public Uni<Long> subscribe(String project, QueueName queue, SubscriptionService.Fields fields, SocketInbox inbox) {
        return Uni.createFrom().deferred(() -> {
            int ttl = subscriptions.ttlToCreate(fields);
            String options = subscriptions.optionsToCreate(fields);
            Socket socket = sockets.computeIfAbsent(inbox.socketId(), id -> new Socket(inbox));
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
    private Uni<Long> stored(Socket socket, PlacedQueue placed, int ttl, String options) {
        QueueKey key = new QueueKey(placed.db(), placed.project(), placed.storedName());
        Route route = new Route(socket, key, placed.name());
        routes.add(route);
        long sentAt = System.nanoTime();
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
                    long id = created.get().id();
                    route.stored = created.get().stored();
                    route.leaseSentAt = sentAt;
                    route.id = id;
                    route.since = created.get().lastMessageId();
                    SocketRoutes.Feed feed = routes.feed(key);
                    if (feed != null) {
                        feed.startAt(route.since);
                    }
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
        routes.remove(route);
    }

    @Override
    public Uni<Void> forget(SocketInbox inbox) {
        return Uni.createFrom().deferred(() -> {
            forgotten.put(inbox, Boolean.TRUE);
            Socket socket = sockets.get(inbox.socketId());
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
            Socket socket = sockets.get(inbox.socketId());
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

    @Override
    public void unsubscribing(SocketInbox inbox, String project, QueueName queue, long id) {
        Socket socket = sockets.get(inbox.socketId());
        if (socket == null || socket.inbox != inbox) {
            return;
        }
        Route own = null;
        synchronized (socket) {
            for (Route route : socket.routes.values()) {
                if (route.id == id && route.key.project().equals(project) && route.queue.equals(queue)) {
                    own = route;
                }
            }
            if (own != null) {
                socket.routes.remove(own.key, own);
            }
        }
        if (own != null) {
            unroute(own);
        }
    }

    /** Renews the leases of the subscriptions this replica holds, one statement per database. */
    @Scheduled(
            every = "${pigeon.socket-subscriptions.renewal}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    Uni<Void> renewLeases() {
        return leases.renew();
    }

    /** Whether the route's socket still holds it: open, and neither deleted by its client nor replaced. */
    private static boolean holds(Route route) {
        Socket socket = route.socket;
        synchronized (socket) {
            return !socket.forgotten && socket.routes.get(route.key) == route;
        }
    }

    /** Tells the read-back of a database of the posts a lapsed lease may have kept from being noticed. */
    private final class ReadBacksMissing implements SocketLeases.MissedPosts {

        @Override
        public void hold(SqlClient db) {
            SocketReadBack readBack = readBacks.get(db);
            if (readBack != null) {
                readBack.holdNotices();
            }
        }

        @Override
        public void readBack(SqlClient db) {
            SocketReadBack readBack = readBacks.get(db);
            if (readBack != null) {
                readBack.readBackMissed();
            }
        }

        @Override
        public void release(SqlClient db) {
            SocketReadBack readBack = readBacks.get(db);
            if (readBack != null) {
                readBack.releaseNotices();
            }
        }
    }

    private void dropDeleted(Route route) {
        Socket socket = route.socket;
        synchronized (socket) {
            socket.routes.remove(route.key, route);
        }
        unroute(route);
    }

    /** Ready once this replica LISTENs on {@code db}; refused (503) when it cannot, and tried again next time. */
    private Uni<Void> listening(SqlClient db) {
        SocketReadBack[] made = new SocketReadBack[1];
        SocketReadBack readBack = readBacks.computeIfAbsent(
                db,
                client -> made[0] = new SocketReadBack(
                        client,
                        routes,
                        store,
                        cipher,
                        unreadable,
                        config,
                        notices,
                        () -> readBacks.remove(client, made[0])));
        return readBack.ready;
    }

    void stop(@Observes ShutdownEvent stopping) {
        readBacks.values().forEach(SocketReadBack::close);
        readBacks.clear();
    }

    /** How many sockets this replica holds subscriptions for (for tests and metrics). */
    public int socketsHeld() {
        return sockets.size();
    }
}
