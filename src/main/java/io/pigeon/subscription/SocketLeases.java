package io.pigeon.subscription;

import io.pigeon.storage.PerDatabaseRenewal;
import io.pigeon.subscription.SocketRoutes.Route;
import io.pigeon.subscription.SocketSubscriptionStore.Lapsed;
import io.pigeon.subscription.SocketSubscriptionStore.Stored;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.jboss.logging.Logger;

/**
 * The leases of the socket subscriptions this replica holds, renewed a round at a time, and what a round's answer
 * means for the subscriptions whose rows are gone.
 *
 * <p>The sweeper deletes the rows whose lease ran out, which is right for the rows of a replica that died; but a
 * replica that could not reach the database for longer than the lease (a failover takes 40 to 80 s, the lease is 30 s)
 * is alive, its sockets open, and the sweeper of any replica may take its rows once the database is back. So a row
 * found gone is told apart by its lease: if this replica renewed it less than a lease ago, the row cannot have been
 * swept and was deleted on purpose (by id, or with its queue), and the socket is no longer subscribed to it. If its
 * last renewal (or its making) was sent a lease ago or more, it may have been swept, and it is stored again as it was
 * (same id, queue, subscriber, ttl and options), provided the queue is still the one it was made on (a queue deleted
 * meanwhile ends its subscriptions, as it always did) and it has not expired. A subscription the socket's own client
 * deleted was unrouted then ({@link SocketPushes#unsubscribing}) and is not in the round. What neither can be told
 * from a sweep: a deletion by id from another client or a purge of the queue's subscriptions, made while this
 * replica's lease had lapsed and before its next renewal; such a subscription is stored again.
 *
 * <p>While a lease was lapsed, posts to the queue did not notice the socket (a post tells the replicas only of queues
 * with a live socket subscription), whether the row was swept or only out of date: after such a round, the database's
 * read-back reads what was posted since the socket's queue was last pushed ({@link SocketReadBack#readBackMissed}),
 * and the notices heard meanwhile wait for it, so that a post after the outage is not pushed before one it missed.
 */
final class SocketLeases {

    /** The read-backs of this replica's databases, as a round of renewals tells them of posts they may have missed. */
    interface MissedPosts {

        /** Notices heard on {@code db} from now on wait for {@link #readBack}. */
        void hold(SqlClient db);

        /** Reads back the posts to {@code db}'s socket-subscribed queues that were not pushed, then what waits. */
        void readBack(SqlClient db);

        /** The notices held on {@code db} go on as they were: the round learnt nothing (the database did not answer). */
        void release(SqlClient db);
    }

    private static final Logger LOG = Logger.getLogger(SocketPushes.class);

    private final SocketSubscriptionStore store;
    private final SocketRoutes routes;
    private final SocketSubscriptionSettings config;
    /** Whether the socket still holds the route (its client did not delete it, the socket is open). */
    private final Predicate<Route> stillHeld;
    /** The socket is no longer subscribed through the route. */
    private final Consumer<Route> dropped;
    /** The read-back of each database, told when posts may have gone unnoticed. */
    private final MissedPosts missed;
    /** {@link System#nanoTime}, as {@link Route#leaseSentAt} is. */
    private final LongSupplier clock;

    SocketLeases(
            SocketSubscriptionStore store,
            SocketRoutes routes,
            SocketSubscriptionSettings config,
            Predicate<Route> stillHeld,
            Consumer<Route> dropped,
            MissedPosts missed,
            LongSupplier clock) {
        this.store = store;
        this.routes = routes;
        this.config = config;
        this.stillHeld = stillHeld;
        this.dropped = dropped;
        this.missed = missed;
        this.clock = clock;
    }

    /** Renews the leases of every stored subscription held, one statement per database. */
    Uni<Void> renew() {
        List<Route> stored = new ArrayList<>();
        for (Set<Route> queueRoutes : routes.all()) {
            for (Route route : queueRoutes) {
                if (route.id > 0) {
                    stored.add(route);
                }
            }
        }
        return PerDatabaseRenewal.renew(
                stored,
                route -> route.key.db(),
                this::renew,
                config.renewal(),
                LOG,
                "the leases of %d socket subscriptions");
    }

    /**
     * Whether the lease of {@code route} may have run out by {@code now}: the statement that last set it was sent at
     * least a lease before. The lease counts from when the database ran that statement, after it was sent; a row swept
     * was swept at least a lease after that, and the answer that finds it gone comes later still.
     */
    boolean mayHaveLapsed(Route route, long now) {
        return now - route.leaseSentAt >= config.lease().toNanos();
    }

    private Uni<Void> renew(SqlClient db, List<Route> part) {
        long sentAt = clock.getAsLong();
        // A lease that may have lapsed already: the notices heard once it is live again wait for the read-back.
        boolean holding = part.stream().anyMatch(route -> mayHaveLapsed(route, sentAt));
        if (holding) {
            missed.hold(db);
        }
        // Whether the database answered the renewal, and whether a lease it renewed or restored may have lapsed.
        boolean[] answered = {false};
        boolean[] lapsed = {false};
        return store.renew(
                        db,
                        part.stream().map(route -> route.id).distinct().toList(),
                        config.lease().toSeconds())
                .chain(kept -> {
                    answered[0] = true;
                    long answeredAt = clock.getAsLong();
                    Map<Long, Route> gone = new LinkedHashMap<>();
                    for (Route route : part) {
                        boolean mayHaveLapsed = mayHaveLapsed(route, answeredAt);
                        Stored now = kept.get(route.id);
                        if (now != null) {
                            route.stored = now;
                            route.leaseSentAt = sentAt;
                            lapsed[0] |= mayHaveLapsed;
                        } else if (mayHaveLapsed && stillHeld.test(route)) {
                            gone.putIfAbsent(route.id, route);
                        } else {
                            // Deleted on purpose (by id, or with its queue), or its socket let it go meanwhile.
                            dropped.accept(route);
                        }
                    }
                    lapsed[0] |= !gone.isEmpty();
                    return gone.isEmpty() ? Uni.createFrom().voidItem() : restore(db, List.copyOf(gone.values()));
                })
                .onTermination()
                .invoke(() -> {
                    if (answered[0] && (holding || lapsed[0])) {
                        // Even if a restore failed: the leases renewed may have lapsed, and are not counted again.
                        missed.readBack(db);
                    } else if (holding) {
                        // Unreachable still: the next round that reaches it reads back.
                        missed.release(db);
                    }
                });
    }

    /** Stores {@code gone} again; those that cannot be (their queue deleted, expired) end as deleted ones do. */
    private Uni<Void> restore(SqlClient db, List<Route> gone) {
        long sentAt = clock.getAsLong();
        List<Lapsed> rows = gone.stream()
                .map(route -> new Lapsed(
                        route.id, route.key.project(), route.key.storedName(), route.socket.subscriber, route.stored))
                .toList();
        return store.restore(db, rows, config.lease().toSeconds()).chain(restored -> {
            List<Long> letGo = new ArrayList<>();
            for (Route route : gone) {
                if (!restored.contains(route.id)) {
                    dropped.accept(route);
                } else {
                    route.leaseSentAt = sentAt;
                    if (!stillHeld.test(route)) {
                        // Its client deleted it, or the socket closed, while it was being stored again.
                        letGo.add(route.id);
                    }
                }
            }
            LOG.infof(
                    "Stored again %d socket subscriptions swept while this replica could not renew their leases; %d"
                            + " ended (their queue was deleted or they expired meanwhile)",
                    restored.size(), gone.size() - restored.size());
            return letGo.isEmpty() ? Uni.createFrom().voidItem() : store.forget(db, letGo);
        });
    }
}
