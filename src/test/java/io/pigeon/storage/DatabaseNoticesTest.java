package io.pigeon.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link DatabaseNotices} against the tests' PostgreSQL: notices arrive by channel over one connection per database,
 * and a subscriber is told when that connection came back after PostgreSQL killed it, then hears again.
 */
@QuarkusTest
class DatabaseNoticesTest {

    private static final Duration WITHIN = Duration.ofSeconds(20);

    @Inject
    DatabaseNotices notices;

    @Inject
    Pool pool;

    /** What a subscription was called with. */
    static final class Heard implements DatabaseNotices.Subscriber {
        final List<String> payloads = new CopyOnWriteArrayList<>();
        final AtomicInteger reconnects = new AtomicInteger();

        @Override
        public void noticed(String payload) {
            payloads.add(payload);
        }

        @Override
        public void reconnected() {
            reconnects.incrementAndGet();
        }
    }

    private static String newChannel() {
        return "test_" + UUID.randomUUID().toString().replace("-", "");
    }

    private long noticeConnections() {
        return Db.count(
                pool,
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()",
                DatabaseNotices.APPLICATION_NAME);
    }

    @Test
    void everyChannelOfADatabaseIsHeardOnOneConnection() {
        String first = newChannel();
        String second = newChannel();
        Heard onFirst = new Heard();
        Heard alsoOnFirst = new Heard();
        Heard onSecond = new Heard();
        List<DatabaseNotices.Listening> all = List.of(
                notices.listen(pool, first, onFirst),
                notices.listen(pool, first, alsoOnFirst),
                notices.listen(pool, second, onSecond));
        try {
            all.forEach(listening -> listening.ready().await().atMost(WITHIN));
            Db.run(pool, "SELECT pg_notify($1, 'one')", first);
            Db.run(pool, "SELECT pg_notify($1, 'two')", second);
            Eventually.await(
                    "the notices",
                    WITHIN,
                    () -> onFirst.payloads.equals(List.of("one"))
                            && alsoOnFirst.payloads.equals(List.of("one"))
                            && onSecond.payloads.equals(List.of("two")));
            assertEquals(1, noticeConnections(), "LISTEN connections to the database");
        } finally {
            all.forEach(DatabaseNotices.Listening::unlisten);
        }
        Db.run(pool, "SELECT pg_notify($1, 'after')", first);
        Heard late = new Heard();
        DatabaseNotices.Listening probe = notices.listen(pool, first, late);
        try {
            probe.ready().await().atMost(WITHIN);
            Db.run(pool, "SELECT pg_notify($1, 'three')", first);
            Eventually.await("the notices", WITHIN, () -> late.payloads.contains("three"));
            // 'after' may reach it too: sent before it subscribed, it can still be on its way while the connection
            // (held by the replica's other subscribers) has not yet answered the channel's UNLISTEN. A notice is a
            // hint to look again, so hearing one early is harmless; hearing anything else would not be.
            assertTrue(
                    List.of("after", "three").containsAll(late.payloads),
                    "heard by the late subscriber: " + late.payloads);
            assertEquals(List.of("one"), onFirst.payloads, "nothing after unlisten");
        } finally {
            probe.unlisten();
        }
    }

    @Test
    void aSubscriberIsToldOfEachReconnectAndHearsAgain() {
        String channel = newChannel();
        Heard heard = new Heard();
        DatabaseNotices.Listening listening = notices.listen(pool, channel, heard);
        try {
            listening.ready().await().atMost(WITHIN);
            for (int kill = 1; kill <= 3; kill++) {
                int killed = kill;
                Db.run(
                        pool,
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
                        DatabaseNotices.APPLICATION_NAME);
                Eventually.await("the notices", WITHIN, () -> heard.reconnects.get() >= killed);
                String payload = "after kill " + kill;
                // Sent until heard: the connection may be lost again by another test's kill meanwhile.
                Eventually.await("the notices", WITHIN, () -> {
                    Db.run(pool, "SELECT pg_notify($1, $2)", channel, payload);
                    return heard.payloads.contains(payload);
                });
            }
            assertEquals(1, noticeConnections(), "LISTEN connections to the database");
        } finally {
            listening.unlisten();
        }
    }
}
