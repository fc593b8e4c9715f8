package io.pigeon.storage;

import io.pigeon.rules.Rejection;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * One subscription made by {@link DatabaseNotices#listen}: its subscriber, guarded so that a failing subscriber never
 * stops the others, its readiness, and how many losses of the connection it was told of, so that it is told of each
 * once and before anything heard after it.
 */
final class NoticeSubscription implements DatabaseNotices.Listening {

    private static final Logger LOG = Logger.getLogger(DatabaseNotices.class);

    final SqlClient db;
    final String channel;
    final CompletableFuture<Void> listened = new CompletableFuture<>();
    /** Its channel was LISTENed since it joined, or it was answered ready while the connection was down. */
    volatile boolean heard;
    /** The last loss of the connection it was told of. */
    final AtomicLong toldOfLosses = new AtomicLong();

    volatile boolean unlistened;

    /**
     * Leaves its channel (once it joined one), answering what to run outside the lock (the connection to close), or
     * null; guarded by {@link #lock}.
     */
    Supplier<Runnable> leave;

    private final Object lock;
    private final DatabaseNotices.Subscriber subscriber;

    NoticeSubscription(Object lock, SqlClient db, String channel, DatabaseNotices.Subscriber subscriber) {
        this.lock = lock;
        this.db = db;
        this.channel = channel;
        this.subscriber = subscriber;
    }

    @Override
    public Uni<Void> ready() {
        return Uni.createFrom().completionStage(listened);
    }

    @Override
    public void unlisten() {
        Runnable after = null;
        synchronized (lock) {
            if (unlistened) {
                return;
            }
            unlistened = true;
            if (leave != null) {
                after = leave.get();
            }
        }
        if (after != null) {
            after.run();
        }
        listened.completeExceptionally(new IllegalStateException("unlistened"));
    }

    /** The connection could not be opened: dropped, its readiness failed with {@code refusal}. */
    void refused(Rejection refusal) {
        synchronized (lock) {
            unlistened = true;
        }
        listened.completeExceptionally(refusal);
    }

    /** Tells the subscriber of a loss it was not told of yet: before anything heard since. */
    void catchUp(long losses) {
        long told = toldOfLosses.get();
        if (heard && told < losses && toldOfLosses.compareAndSet(told, losses)) {
            reconnected();
        }
    }

    void noticed(String payload) {
        if (unlistened) {
            return;
        }
        try {
            subscriber.noticed(payload == null ? "" : payload);
        } catch (RuntimeException e) {
            LOG.warnf("A subscriber of notices on %s failed: %s", channel, e.toString());
        }
    }

    void reconnected() {
        if (unlistened) {
            return;
        }
        try {
            subscriber.reconnected();
        } catch (RuntimeException e) {
            LOG.warnf("A subscriber of notices on %s failed to catch up: %s", channel, e.toString());
        }
    }
}
