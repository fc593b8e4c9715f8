package io.pigeon.observability;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * Pigeon's own metrics, beside the HTTP ones, at /q/metrics: messages posted, claimed, deleted (by clients,
 * pops and purges), expired (removed by the sweeper) and dead-lettered, and how long claims take. None is per queue,
 * so that /q/metrics holds as many series with one queue as with a million: what a request does to its queue is also
 * counted for that queue ({@link QueueCounts}), and served apart, at /q/metrics/queues.
 */
@Startup // registered at start, so every series is exported (at zero) before the first message
@ApplicationScoped
public class QueueMetrics {

    private final Counter posted;
    private final Counter claimed;
    private final Counter deleted;
    private final Counter expired;
    private final Counter deadLettered;
    private final Timer claimLatency;
    private final MeterRegistry registry;
    private final QueueCounts queues;

    public QueueMetrics(MeterRegistry registry, QueueCounts queues) {
        this.registry = registry;
        this.queues = queues;
        posted = Counter.builder("pigeon.messages.posted")
                .description("Messages stored by posts")
                .register(registry);
        claimed = Counter.builder("pigeon.messages.claimed")
                .description("Messages taken by claims")
                .register(registry);
        deleted = Counter.builder("pigeon.messages.deleted")
                .description("Messages deleted by clients, pops and purges")
                .register(registry);
        expired = Counter.builder("pigeon.messages.expired")
                .description("Expired messages removed by the sweeper")
                .register(registry);
        deadLettered = Counter.builder("pigeon.messages.dead.lettered")
                .description("Messages moved to a dead-letter queue")
                .register(registry);
        claimLatency = Timer.builder("pigeon.claim.latency")
                .description("Time to take a claim, database included")
                .publishPercentileHistogram()
                .register(registry);
        for (String kind : new String[] {"post", "claim", "fifo-claim", "delete", "receipt-delete"}) {
            statementRequests(kind);
        }
    }

    /** Messages stored in {@code queue} (its stored name) of {@code project}: counted here and for the queue. */
    public void posted(String project, String queue, long count) {
        posted.increment(count);
        queues.posted(project, queue, count);
    }

    /** Messages taken by a claim on the queue. */
    public void claimed(String project, String queue, long count) {
        claimed.increment(count);
        queues.claimed(project, queue, count);
    }

    /** A claim request on an existing queue that found no message (counted for the queue only). */
    public void emptyClaim(String project, String queue) {
        queues.emptyClaim(project, queue);
    }

    /** Messages of the queue deleted by a client, a pop or a purge. */
    public void deleted(String project, String queue, long count) {
        deleted.increment(count);
        queues.deleted(project, queue, count);
    }

    public void expired(long count) {
        expired.increment(count);
    }

    public void deadLettered(long count) {
        deadLettered.increment(count);
    }

    /**
     * Counts stored messages whose sealed body did not open, by what became of them ({@code left_out} of a read,
     * {@code set_aside} by a claim or pop, {@code not_set_aside} when that failed). Not by queue: the log line names
     * the queue and the message, and a tag per queue would make a series per queue.
     */
    public void unreadable(String outcome, long count) {
        Counter.builder("pigeon.messages.unreadable")
                .description("Stored messages whose sealed body does not open, never answered (see the log)")
                .tag("outcome", outcome)
                .register(registry)
                .increment(count);
    }

    /**
     * Records the requests each statement of {@code kind} (post, claim, delete) carried: 1 when a request ran alone,
     * more when requests arriving together shared it (pigeon_statement_requests, a histogram per kind).
     */
    public IntConsumer statementRequests(String kind) {
        DistributionSummary requests = DistributionSummary.builder("pigeon.statement.requests")
                .description("Requests carried by one statement: more than 1 when concurrent requests shared it")
                .tag("kind", kind)
                .serviceLevelObjectives(1, 2, 4, 8, 16, 32, 64)
                .register(registry);
        return requests::record;
    }

    /** Times a claim from subscription to its answer. */
    public <T> Uni<T> timeClaim(Supplier<Uni<T>> claim) {
        return Uni.createFrom().deferred(() -> {
            Timer.Sample sample = Timer.start();
            return claim.get().eventually(() -> sample.stop(claimLatency));
        });
    }
}
