package io.pigeon.subscription;

import io.pigeon.queue.QueueName;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The socket subscriptions this replica holds, by queue, and what was pushed to each queue: shared by
 * {@link SocketPushes}, which adds and drops them, and {@link SocketReadBack}, which pushes to them. What was pushed is
 * kept so that the read-back after a reconnect of the notices connection pushes nothing twice.
 */
final class SocketRoutes {

    /**
     * How many of the highest ids pushed to a queue are remembered. A message whose id is below them and that was not
     * pushed (its post committed after more than this many later posts to the queue, while the connection was down)
     * is not read back.
     */
    static final int REMEMBERED = 1024;

    /** A queue as this replica registers sockets for it: the same queue is the same client, project and name. */
    record QueueKey(SqlClient db, String project, String storedName) {}

    /** What this replica knows of one socket. */
    static final class Socket {
        final SocketSubscriptions.SocketInbox inbox;
        final String subscriber = SocketPushes.SUBSCRIBER_PREFIX + UUID.randomUUID();
        /** Its subscriptions, stored or being stored, by queue; guarded by {@code this}. */
        final Map<QueueKey, Route> routes = new HashMap<>();
        /** Subscriptions being stored now; guarded by {@code this}. */
        int storing;

        volatile boolean forgotten;

        Socket(SocketSubscriptions.SocketInbox inbox) {
            this.inbox = inbox;
        }
    }

    /** One socket's subscription to one queue; {@code id} is known once its row is stored. */
    static final class Route {
        final Socket socket;
        final QueueKey key;
        final QueueName queue;
        volatile long id;
        /**
         * The highest message id of the queue when the row was stored: a read-back after a reconnect gives it only
         * messages above (those posted after it subscribed). {@code Long.MAX_VALUE} until known.
         */
        volatile long since = Long.MAX_VALUE;
        /** The row as this replica last saw it (made or renewed): what restoring it stores again; set before id. */
        volatile SocketSubscriptionStore.Stored stored;
        /**
         * When ({@link System#nanoTime}) the statement that last set the row's lease was sent: its lease ran until at
         * least {@code lease} after that, and may have lapsed only once that much time has passed.
         */
        volatile long leaseSentAt;

        Route(Socket socket, QueueKey key, QueueName queue) {
            this.socket = socket;
            this.key = key;
            this.queue = queue;
        }
    }

    /**
     * The ids pushed to one queue. Every id above {@link #floor} that was pushed is in {@link #pushed}: a read-back
     * after a reconnect reads the ids above the floor and pushes those not in it.
     */
    static final class Feed {
        /** Guarded by {@code this}; {@code Long.MAX_VALUE} until the first subscription's row is stored. */
        private long floor = Long.MAX_VALUE;
        /**
         * The highest ids pushed, at most {@link #REMEMBERED}, ascending in {@code pushed[0..count)}; guarded by
         * {@code this}. A plain array (8 bytes an id, grown as it fills) rather than a set of boxed ids (some 56).
         */
        private long[] pushed = new long[16];
        /** Guarded by {@code this}. */
        private int count;
        /** While held, nothing is forgotten (see {@link #hold}); guarded by {@code this}. */
        private boolean held;

        /** The first subscription of the queue was stored when its highest message id was {@code since}. */
        synchronized void startAt(long since) {
            if (floor == Long.MAX_VALUE) {
                floor = since;
            }
        }

        synchronized long floor() {
            return floor;
        }

        /** Records {@code id} as pushed; false if it was already. */
        synchronized boolean firstPush(long id) {
            int at = Arrays.binarySearch(pushed, 0, count, id);
            if (at >= 0) {
                return false;
            }
            at = -at - 1;
            if (count >= REMEMBERED && !held) {
                // The lowest is forgotten: the new id itself when it is lower than all remembered.
                long forgotten = at == 0 ? id : pushed[0];
                floor = floor == Long.MAX_VALUE ? forgotten : Math.max(floor, forgotten);
                if (at == 0) {
                    return true;
                }
                System.arraycopy(pushed, 1, pushed, 0, at - 1);
                pushed[at - 1] = id;
                return true;
            }
            if (count == pushed.length) {
                pushed = Arrays.copyOf(pushed, held ? count * 2 : Math.min(REMEMBERED, count * 2));
            }
            System.arraycopy(pushed, at, pushed, at + 1, count - at);
            pushed[at] = id;
            count++;
            return true;
        }

        /**
         * Forgets nothing until {@link #release}: a read-back after a reconnect pushes posts whose notices may be heard
         * after it, and those must find every id it pushed, not only the last {@value #REMEMBERED}.
         */
        synchronized void hold() {
            held = true;
        }

        /** Every notice that could name an id pushed while held was taken: back to the highest remembered. */
        synchronized void release() {
            held = false;
            if (count > REMEMBERED) {
                int forgotten = count - REMEMBERED;
                floor = floor == Long.MAX_VALUE ? pushed[forgotten - 1] : Math.max(floor, pushed[forgotten - 1]);
                pushed = Arrays.copyOfRange(pushed, forgotten, forgotten + REMEMBERED);
                count = REMEMBERED;
            }
        }

        /** How many ids are remembered now (for tests). */
        synchronized int remembered() {
            return count;
        }
    }

    private final Map<QueueKey, Set<Route>> routes = new ConcurrentHashMap<>();
    private final Map<QueueKey, Feed> feeds = new ConcurrentHashMap<>();

    void add(Route route) {
        routes.compute(route.key, (key, set) -> {
            Set<Route> held = set == null ? ConcurrentHashMap.newKeySet() : set;
            held.add(route);
            feeds.computeIfAbsent(key, any -> new Feed());
            return held;
        });
    }

    void remove(Route route) {
        routes.computeIfPresent(route.key, (key, set) -> {
            set.remove(route);
            if (set.isEmpty()) {
                feeds.remove(key);
                return null;
            }
            return set;
        });
    }

    /** The subscriptions of {@code key}'s queue, or null when this replica holds none. */
    Set<Route> of(QueueKey key) {
        return routes.get(key);
    }

    boolean holds(QueueKey key) {
        return routes.containsKey(key);
    }

    /** What was pushed to {@code key}'s queue, or null when this replica holds no subscription to it. */
    Feed feed(QueueKey key) {
        return feeds.get(key);
    }

    /** The queues of {@code db} this replica holds subscriptions to. */
    List<QueueKey> queuesOf(SqlClient db) {
        return routes.keySet().stream().filter(key -> key.db() == db).toList();
    }

    /** Every subscription held, of every queue. */
    Iterable<Set<Route>> all() {
        return routes.values();
    }
}
