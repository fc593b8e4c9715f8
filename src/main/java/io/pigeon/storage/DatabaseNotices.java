package io.pigeon.storage;

import io.pigeon.rules.Rejection;
import io.quarkus.runtime.ShutdownEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgConnection;
import io.vertx.mutiny.pgclient.pubsub.PgChannel;
import io.vertx.mutiny.pgclient.pubsub.PgSubscriber;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.pgclient.PgConnectOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * The notices (PostgreSQL LISTEN/NOTIFY) of the databases that hold queues, heard on ONE connection per database per
 * replica ({@code application_name} {@value #APPLICATION_NAME}), opened with the first subscription on that database
 * and closed after the last. Every feature that wakes on a NOTIFY subscribes here by channel, so the connection, its
 * reconnect pause, its logging and the refusal when it cannot be opened are written once.
 *
 * <p>Usage:
 *
 * <pre>{@code
 * DatabaseNotices.Listening listening = notices.listen(db, "my_channel", new DatabaseNotices.Subscriber() {
 *     public void noticed(String payload) { ... }      // one NOTIFY on my_channel, on the event loop
 *     public void reconnected() { ... }                // what was sent while the connection was down is lost
 * });
 * listening.ready()        // a Uni: LISTEN is in place (or 503 when the database cannot be reached)
 * listening.unlisten();    // stops the calls; the connection closes with its last subscription
 * }</pre>
 *
 * <p>LISTEN/NOTIFY is not durable: a notice sent while the connection is down is never delivered. So every
 * subscriber states what it does on {@link Subscriber#reconnected()}: read what it may have missed from the tables
 * (the dispatcher replans, waiters look at their queues again, sockets read the posts made meanwhile).
 *
 * <p>{@link Listening#ready()} completes once the LISTEN of the channel has been answered by the server (the LISTEN
 * of a new connection is sent before its connect completes), so a NOTIFY committed after it is heard. While an
 * established connection is reconnecting, a new subscription is ready at once, as the others go on serving: its
 * channel is LISTENed with the rest when the connection is back, and it is called {@link Subscriber#reconnected()}
 * then. When the connection cannot be opened at all, {@code ready()} fails with a 503 refusal and the subscription is
 * dropped: the next {@link #listen} tries again.
 */
@ApplicationScoped
public class DatabaseNotices {

    private static final Logger LOG = Logger.getLogger(DatabaseNotices.class);

    /** The {@code application_name} of every LISTEN connection, as {@code pg_stat_activity} shows it. */
    public static final String APPLICATION_NAME = "pigeon-notices";

    /** The pause between two attempts to reconnect a lost connection. */
    static final long RECONNECT_MILLIS = 1000;

    /**
     * How often an established connection is asked a trivial statement, and how long its answer may take before the
     * connection is taken for lost and made again. A connection whose database's address went silent (a failover that
     * drops the old primary's packets) is never closed by its peer and hears nothing, for as long as the operating
     * system keeps retrying (many minutes): this is how it is noticed.
     */
    static final long PROBE_MILLIS = 10_000;

    /** The probe: any answer says the connection still carries statements (and so notices). */
    private static final String PROBE = "SELECT 1";

    /** What a subscription is called with; both on a Vert.x event loop, neither may block. */
    public interface Subscriber {
        /** One notice sent on the subscribed channel, its payload as sent ({@code ""} when none). */
        void noticed(String payload);

        /**
         * The connection came back after a loss (or the subscription was made while it was down): notices sent
         * meanwhile may have been missed. Subscribers catch up from their tables here. Called before any notice heard
         * on the new connection is handed to {@link #noticed}, once per loss.
         */
        void reconnected();
    }

    /** A subscription made by {@link #listen}. */
    public interface Listening {
        /** Completes once the channel is LISTENed; fails with a 503 {@link Rejection} when the database cannot be. */
        Uni<Void> ready();

        /** Stops the calls to the subscriber; idempotent. */
        void unlisten();
    }

    private final DatabaseAddresses addresses;
    private final Vertx vertx;

    /** The connection of each database with subscriptions; guarded by {@code this}. */
    private final Map<SqlClient, Connection> connections = new HashMap<>();
    /** Databases whose last connect failed: logged once until one succeeds; guarded by {@code this}. */
    private final Set<SqlClient> unreachable = new HashSet<>();

    public DatabaseNotices(DatabaseAddresses addresses, Vertx vertx) {
        this.addresses = addresses;
        this.vertx = vertx;
    }

    /** Subscribes {@code subscriber} to {@code channel} on the database of {@code db}, opening its connection. */
    public Listening listen(SqlClient db, String channel, Subscriber subscriber) {
        NoticeSubscription subscription = new NoticeSubscription(this, db, channel, subscriber);
        boolean joined;
        boolean readyNow = false;
        synchronized (this) {
            Connection known = connections.get(db);
            joined = known != null;
            if (joined) {
                readyNow = known.add(subscription);
                known.start();
            }
        }
        if (readyNow) {
            // Completed outside the lock: what waits on it may take locks of its own.
            subscription.listened.complete(null);
        }
        if (joined) {
            return subscription;
        }
        addresses
                .addressOf(db)
                .subscribe()
                .with(
                        address -> {
                            boolean now = false;
                            synchronized (this) {
                                if (!subscription.unlistened) {
                                    Connection connection =
                                            connections.computeIfAbsent(db, client -> new Connection(client, address));
                                    now = connection.add(subscription);
                                    connection.start();
                                }
                            }
                            if (now) {
                                subscription.listened.complete(null);
                            }
                        },
                        failure -> subscription.refused(refusal(failure)));
        return subscription;
    }

    /** How many LISTEN connections this replica holds (for tests). */
    public synchronized int connections() {
        return connections.size();
    }

    void stop(@Observes ShutdownEvent stopping) {
        List<Connection> all;
        synchronized (this) {
            all = new ArrayList<>(connections.values());
            connections.clear();
        }
        all.forEach(Connection::close);
    }

    private static Rejection refusal(Throwable failure) {
        return failure instanceof Rejection rejection
                ? rejection
                : new Rejection(Rejection.Reason.UNAVAILABLE, "Cannot listen for notices on the queue's database.");
    }

    /** One channel LISTENed on a connection, and its subscriptions. */
    private final class Channel {
        final Connection connection;
        final String name;
        final PgChannel listening;
        /** Guarded by {@code DatabaseNotices.this}. */
        final List<NoticeSubscription> subscriptions = new ArrayList<>();
        /** The server answered its LISTEN on the current connection at least once. */
        volatile boolean heard;

        Channel(Connection connection, String name) {
            this.connection = connection;
            this.name = name;
            this.listening = connection.subscriber.channel(name);
            listening.subscribeHandler(this::listened);
        }

        void noticed(String payload) {
            // Heard on a new connection before its subscribe callback ran: the connection is back.
            connection.back();
            long losses = connection.losses.get();
            List<NoticeSubscription> now;
            synchronized (DatabaseNotices.this) {
                now = List.copyOf(subscriptions);
            }
            for (NoticeSubscription subscription : now) {
                subscription.catchUp(losses);
                subscription.noticed(payload);
            }
        }

        /** The server answered a LISTEN of this channel: at the first connect, when added, or after a reconnect. */
        void listened() {
            connection.back();
            long losses = connection.losses.get();
            List<NoticeSubscription> now;
            synchronized (DatabaseNotices.this) {
                heard = true;
                now = List.copyOf(subscriptions);
            }
            for (NoticeSubscription subscription : now) {
                if (subscription.heard) {
                    subscription.catchUp(losses);
                } else {
                    subscription.toldOfLosses.set(losses);
                    subscription.heard = true;
                    subscription.listened.complete(null);
                }
            }
        }

        /**
         * Adds a subscription; true when it is ready now (the caller completes it once out of the lock); called under
         * {@code DatabaseNotices.this}.
         */
        boolean join(NoticeSubscription subscription) {
            // Joined while the connection is down: told of this loss once it is back.
            subscription.toldOfLosses.set(connection.losses.get() - (connection.lost.get() ? 1 : 0));
            subscriptions.add(subscription);
            subscription.leave = () -> {
                Connection closing = leave(subscription);
                return closing == null ? null : closing::close;
            };
            if (subscriptions.size() == 1) {
                // Sends the LISTEN now if the connection is up, else with the others once it is (re)connected.
                listening.handler(this::noticed);
            } else if (heard && connection.up.get()) {
                subscription.heard = true;
            }
            if (!subscription.heard && connection.lost.get()) {
                // Down after having been up: serve on (as the other subscriptions do) and catch up once it is back.
                subscription.heard = true;
            }
            return subscription.heard;
        }

        /** Removes a subscription; the connection to close when it was its last; under {@code DatabaseNotices.this}. */
        Connection leave(NoticeSubscription subscription) {
            subscriptions.remove(subscription);
            if (!subscriptions.isEmpty()) {
                return null;
            }
            connection.channels.remove(name, this);
            listening.getDelegate().handler(null); // UNLISTEN
            if (!connection.channels.isEmpty()) {
                return null;
            }
            connections.remove(connection.db, connection);
            return connection;
        }
    }

    /** The LISTEN connection of one database. */
    private final class Connection {
        final SqlClient db;
        final String description;
        final PgSubscriber subscriber;
        final long connectTimeoutMillis;
        /** Guarded by {@code DatabaseNotices.this}. */
        final Map<String, Channel> channels = new HashMap<>();
        /** Connected and listening. */
        final AtomicBoolean up = new AtomicBoolean();
        /** Lost after having been up, and not back yet. */
        final AtomicBoolean lost = new AtomicBoolean();

        final AtomicBoolean started = new AtomicBoolean();
        final AtomicInteger attempts = new AtomicInteger();
        /** How many times the connection was lost: a subscription told of fewer is told once more. */
        final AtomicLong losses = new AtomicLong();

        volatile boolean closed;
        /** A probe's statement is in flight. */
        final AtomicBoolean probing = new AtomicBoolean();
        /** The probes' periodic timer, once connected. */
        volatile long probes = -1;

        Connection(SqlClient db, DatabaseAddresses.Address address) {
            this.db = db;
            this.description = address.description();
            PgConnectOptions options = new PgConnectOptions(address.options());
            options.addProperty("application_name", APPLICATION_NAME);
            this.connectTimeoutMillis = options.getConnectTimeout();
            subscriber = PgSubscriber.subscriber(vertx, options);
            // Called under the subscriber's own lock: takes none of this class's.
            subscriber.reconnectPolicy(this::reconnectPause);
        }

        /** Connects once, its first channel known: the LISTEN is sent before the connect completes. */
        void start() {
            if (started.compareAndSet(false, true)) {
                subscriber.connect().subscribe().with(connected -> opened(), this::failed);
            }
        }

        /** See {@link Channel#join}. */
        boolean add(NoticeSubscription subscription) {
            return channels.computeIfAbsent(subscription.channel, name -> new Channel(this, name))
                    .join(subscription);
        }

        private long reconnectPause(int failedAttempts) {
            if (closed) {
                return -1;
            }
            up.set(false);
            attempts.set(failedAttempts);
            if (lost.compareAndSet(false, true)) {
                losses.incrementAndGet();
                LOG.warnf(
                        "Lost the connection that listens for notices on %s; reconnecting every %d ms (what was "
                                + "sent meanwhile is read back once it is back)",
                        description, RECONNECT_MILLIS);
            }
            return RECONNECT_MILLIS;
        }

        /** A LISTEN was answered: the connection is up. */
        void back() {
            up.set(true);
            if (lost.compareAndSet(true, false)) {
                LOG.infof("Listening for notices on %s again (after %d failed attempts)", description, attempts.get());
            }
        }

        private void opened() {
            up.set(true);
            if (probes < 0 && !closed) {
                probes = vertx.setPeriodic(PROBE_MILLIS, id -> probe());
            }
            synchronized (DatabaseNotices.this) {
                if (unreachable.remove(db)) {
                    LOG.infof("Listening for notices on %s again", description);
                }
            }
            if (closed) {
                closeActual();
            }
        }

        private void failed(Throwable failure) {
            List<NoticeSubscription> refused = new ArrayList<>();
            boolean first;
            synchronized (DatabaseNotices.this) {
                connections.remove(db, this);
                channels.values().forEach(channel -> refused.addAll(channel.subscriptions));
                channels.clear();
                first = unreachable.add(db);
            }
            if (first) {
                LOG.warnf(
                        "Cannot listen for notices on %s, refusing what needs them until it answers: %s",
                        description, failure.toString());
            }
            close();
            refused.forEach(subscription -> subscription.refused(refusal(failure)));
        }

        /** Asks the connection {@code SELECT 1}; without an answer in time, closes it, so that it is made again. */
        private void probe() {
            PgConnection open = subscriber.actualConnection();
            if (closed || open == null || !up.get() || !probing.compareAndSet(false, true)) {
                return;
            }
            open.query(PROBE)
                    .execute()
                    .ifNoItem()
                    .after(Duration.ofMillis(PROBE_MILLIS))
                    .fail()
                    .subscribe()
                    .with(answered -> probing.set(false), failure -> {
                        probing.set(false);
                        PgConnection now = subscriber.actualConnection();
                        // Mutiny wraps the connection anew at each call: the same connection has the same delegate.
                        if (closed || now == null || now.getDelegate() != open.getDelegate()) {
                            return;
                        }
                        LOG.warnf(
                                "The connection that listens for notices on %s did not answer within %d ms: closing"
                                        + " it to make it again (%s)",
                                description, PROBE_MILLIS, failure.toString());
                        // The subscriber reconnects as after any loss; its subscribers read back what they missed.
                        open.closeAndForget();
                    });
        }

        void close() {
            closed = true;
            if (probes >= 0) {
                vertx.cancelTimer(probes);
            }
            subscriber.closeAndForget();
            // A connect under way when it closed (the first, or a reconnect) completes on a closed subscriber, which
            // would keep it open: closed once it has had the time to.
            closeActual();
            vertx.setTimer(RECONNECT_MILLIS + connectTimeoutMillis + 1000, id -> closeActual());
        }

        private void closeActual() {
            PgConnection open = subscriber.actualConnection();
            if (open != null) {
                open.closeAndForget();
            }
        }
    }
}
