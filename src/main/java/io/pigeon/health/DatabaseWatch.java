package io.pigeon.health;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.pigeon.pool.PoolClients;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The series an operator is paged on when a database stops answering: {@code pigeon_databases_unreachable}, how many
 * of the databases this replica uses (the configured one and every registered pool) did not answer the last ping
 * within {@link DatabaseProbe#TIMEOUT}. The readiness probe answers the same question only to the kubelet, and a
 * replica that is not ready is not scraped through its Service, so the metric keeps its own ping. The ping runs when
 * the gauge is read (a scrape), at most once per {@link #AT_MOST_EVERY}, so a replica nobody scrapes sends nothing;
 * a scrape reads the outcome of the ping started by the scrape before it.
 */
@Startup // registered at start, so the series is exported before the first failure
@ApplicationScoped
public class DatabaseWatch {

    static final Duration AT_MOST_EVERY = Duration.ofSeconds(5);

    private final PoolClients databases;
    private final AtomicInteger unreachable = new AtomicInteger();
    private final AtomicBoolean pinging = new AtomicBoolean();
    private final AtomicLong lastPing;

    DatabaseWatch(PoolClients databases, MeterRegistry registry) {
        this.databases = databases;
        this.lastPing = new AtomicLong(System.nanoTime() - AT_MOST_EVERY.toNanos());
        Gauge.builder("pigeon.databases.unreachable", this, DatabaseWatch::read)
                .description("Databases (the configured one and the pools) that did not answer this replica's last"
                        + " ping")
                .register(registry);
    }

    private double read() {
        long now = System.nanoTime();
        if (now - lastPing.get() >= AT_MOST_EVERY.toNanos() && pinging.compareAndSet(false, true)) {
            lastPing.set(now);
            ping().subscribe().with(count -> {
                unreachable.set(count);
                pinging.set(false);
            });
        }
        return unreachable.get();
    }

    /** How many databases did not answer; never fails. */
    Uni<Integer> ping() {
        return databases
                .everyDatabase()
                .chain(every -> Uni.join()
                        .all(every.stream()
                                .map(database -> DatabaseProbe.reachable(database.client()))
                                .toList())
                        .andFailFast())
                .map(DatabaseWatch::silent)
                .ifNoItem()
                .after(DatabaseProbe.TIMEOUT.multipliedBy(2))
                .fail()
                // The configured database did not list the pools: it is down, and what the others do is unknown.
                .onFailure()
                .recoverWithItem(1);
    }

    private static int silent(List<Boolean> answers) {
        return (int) answers.stream().filter(answered -> !answered).count();
    }
}
