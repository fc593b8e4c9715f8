package io.pigeon.storage;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * One round of renewing what a replica holds on rows of several databases (its marks on queues with waiters, its
 * sockets' subscriptions): one statement per database, all at once. A database that fails is logged and renewed again
 * at the next round; it fails neither the round nor the other databases' renewals, so one pool that does not answer
 * cannot let the leases lapse on the others. Nor can one that never answers hold the round: a renewal not answered
 * within the deadline (the renewal period) fails, so the next round starts on time, on another connection, instead of
 * waiting for a connection whose database went silent (a failover whose old address drops packets) until the
 * operating system gives up on it, many minutes later.
 */
public final class PerDatabaseRenewal {

    private PerDatabaseRenewal() {}

    /**
     * Renews {@code held}, grouped by {@code database} (the client it lives on, by identity): {@code renewal} runs
     * once per database with that database's part. A failure is logged on {@code log} as "Could not renew
     * {@code what}, will retry", {@code what} formatted with the number of things of that database (e.g. "the leases
     * of %d socket subscriptions"). A database's renewal not answered within {@code deadline} fails likewise.
     * Completes when every database has answered or failed.
     */
    public static <T> Uni<Void> renew(
            Iterable<T> held,
            Function<T, SqlClient> database,
            BiFunction<SqlClient, List<T>, Uni<?>> renewal,
            Duration deadline,
            Logger log,
            String what) {
        Map<SqlClient, List<T>> byDatabase = new IdentityHashMap<>();
        for (T thing : held) {
            byDatabase
                    .computeIfAbsent(database.apply(thing), db -> new ArrayList<>())
                    .add(thing);
        }
        List<Uni<Void>> renewals = new ArrayList<>();
        byDatabase.forEach((db, part) -> renewals.add(renewal.apply(db, part)
                .ifNoItem()
                .after(deadline)
                .failWith(() -> new TimeoutException("no answer within " + deadline.toMillis() + " ms"))
                .onFailure()
                .invoke(failure -> log.warnf(
                        "Could not renew %s, will retry: %s", what.formatted(part.size()), failure.toString()))
                .onFailure()
                .recoverWithNull()
                .replaceWithVoid()));
        return renewals.isEmpty()
                ? Uni.createFrom().voidItem()
                : Uni.join().all(renewals).andFailFast().replaceWithVoid();
    }
}
