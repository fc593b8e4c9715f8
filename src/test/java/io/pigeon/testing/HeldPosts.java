package io.pigeon.testing;

import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import java.time.Duration;

/**
 * Holds the creating posts of the tests' database: while open, a lock on the messages table keeps a post's statement
 * waiting, in flight, so that the posts sent meanwhile wait behind it in the coalescer and share the next statement
 * once it is closed, on any machine.
 */
public final class HeldPosts implements AutoCloseable {

    private final Pool pool;
    private final SqlConnection holder;
    private final Transaction held;

    private HeldPosts(Pool pool, SqlConnection holder, Transaction held) {
        this.pool = pool;
        this.holder = holder;
        this.held = held;
    }

    public static HeldPosts hold(Pool pool) {
        SqlConnection holder = pool.getConnection().await().indefinitely();
        Transaction held = holder.begin().await().indefinitely();
        holder.query("LOCK TABLE messages IN SHARE MODE").execute().await().indefinitely();
        return new HeldPosts(pool, holder, held);
    }

    /** Waits until a creating post's statement waits for the lock (it is then in flight). */
    public void awaitOneHeld() {
        // pg_stat_activity keeps the statement's first 1,024 bytes: a post alone's statement is known by its start.
        Eventually.await(
                "a post held by the lock",
                Duration.ofSeconds(10),
                () -> Db.count(
                                pool,
                                """
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
                AND wait_event_type = 'Lock' AND query LIKE 'WITH known AS (%'""")
                        > 0);
    }

    /** Lets the held statement run: the posts waiting behind it run next, together. */
    @Override
    public void close() {
        held.rollback().await().indefinitely();
        holder.close().await().indefinitely();
    }
}
