package io.pigeon.queuemetrics;

import io.pigeon.observability.QueueMetricsSettings;
import io.pigeon.pool.PoolClients;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;

/**
 * The per-queue series /q/metrics/queues serves: each queue's last sample and totals, read from every database that
 * holds queues (never counted for the request), in project and queue order, up to {@code pigeon.queue-metrics.max-series}.
 * Who may read which projects is the caller's edge's decision: this class reads the projects it is given.
 */
@ApplicationScoped
public class QueueSeries {

    private static final Logger LOG = Logger.getLogger(QueueSeries.class);

    /**
     * The series one queue may be served as: three message counts, the oldest ready message's age, seven totals,
     * whether its counts are estimated, and a fifo queue's blocked groups; the bound on an answer counts every queue as
     * this many.
     */
    public static final int SERIES_PER_QUEUE = 13;

    /** Values one filter parameter ({@code project}, {@code queue}, {@code topic}) may hold in one request. */
    public static final int MAX_FILTER_VALUES = 100;

    /** Longest project id a filter may name, as long as a project id may be. */
    static final int MAX_PROJECT_LENGTH = 256;

    /**
     * Which queues to read: of the projects named (every project when none is), and of the queues and topics named
     * (every queue and topic when neither is), by the names they are stored under.
     */
    public record Filter(List<String> projects, List<String> storedNames) {}

    /**
     * An answer: the queues read, whether more were left out past the bound, and how many databases could not be
     * read (their queues are missing). {@code enabled} false: per-queue metrics are off.
     */
    public record Answer(
            boolean enabled, List<QueueMetricsStore.QueueReading> queues, boolean truncated, int unreadableDatabases) {}

    private final QueueMetricsSettings config;
    private final PoolClients databases;
    private final QueueMetricsStore store;
    private final AtomicInteger inFlight = new AtomicInteger();

    public QueueSeries(QueueMetricsSettings queueMetricsSettings, PoolClients databases, QueueMetricsStore store) {
        this.config = queueMetricsSettings;
        this.databases = databases;
        this.store = store;
    }

    /**
     * The filter of a request: project ids as given (at most {@value #MAX_PROJECT_LENGTH} characters, no control
     * character), queue and topic names checked as a path checks them; each parameter at most
     * {@value #MAX_FILTER_VALUES} values.
     */
    public Filter filter(List<String> projects, List<String> queues, List<String> topics) {
        requireCount("project", projects);
        requireCount("queue", queues);
        requireCount("topic", topics);
        for (String project : projects) {
            if (project.length() > MAX_PROJECT_LENGTH || project.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                throw Rejection.invalidParameter(
                        "project",
                        "A project id is at most " + MAX_PROJECT_LENGTH + " characters, none of them a control"
                                + " character.");
            }
        }
        List<String> names = new ArrayList<>(queues.size() + topics.size());
        queues.forEach(queue -> names.add(QueueName.of(queue).value()));
        topics.forEach(topic -> names.add(QueueName.topic(topic).value()));
        return new Filter(List.copyOf(projects), names);
    }

    private static void requireCount(String parameter, List<String> values) {
        if (values.size() > MAX_FILTER_VALUES) {
            throw Rejection.invalidParameter(
                    parameter, "It may be given at most " + MAX_FILTER_VALUES + " times in one request.");
        }
    }

    /** The queues the filter selects, every database read at once; refused (429) past the answers in flight. */
    public Uni<Answer> read(Filter filter) {
        if (!config.enabled()) {
            return Uni.createFrom().item(new Answer(false, List.of(), false, 0));
        }
        if (inFlight.incrementAndGet() > config.maxScrapesInFlight()) {
            inFlight.decrementAndGet();
            throw new Rejection(
                    Rejection.Reason.QUOTA_BACKLOG,
                    "This replica is preparing " + config.maxScrapesInFlight()
                            + " answers of /q/metrics/queues already (pigeon.queue-metrics.max-scrapes-in-flight);"
                            + " try again shortly.");
        }
        int maxQueues = Math.max(1, config.maxSeries() / SERIES_PER_QUEUE);
        return databases
                .onEvery(database -> store.read(
                                database.client(), filter.projects(), filter.storedNames(), maxQueues + 1)
                        .map(Optional::of)
                        .onFailure()
                        .recoverWithItem(e -> {
                            LOG.warnf("Reading the queue metrics of %s failed: %s", database.describe(), e.toString());
                            return Optional.empty();
                        }))
                .map(read -> {
                    List<QueueMetricsStore.QueueReading> all = new ArrayList<>();
                    int unreadable = 0;
                    for (Optional<List<QueueMetricsStore.QueueReading>> one : read) {
                        if (one.isEmpty()) {
                            unreadable++;
                        } else {
                            all.addAll(one.get());
                        }
                    }
                    all.sort(Comparator.comparing(QueueMetricsStore.QueueReading::project)
                            .thenComparing(QueueMetricsStore.QueueReading::storedName));
                    if (unreadable == read.size()) {
                        // Nothing could be read: an empty answer would tell Prometheus every queue is gone.
                        throw new Rejection(
                                Rejection.Reason.UNAVAILABLE,
                                "No database could be read for the queue metrics; try again shortly.");
                    }
                    boolean truncated = all.size() > maxQueues;
                    return new Answer(
                            true, truncated ? List.copyOf(all.subList(0, maxQueues)) : all, truncated, unreadable);
                })
                .eventually(inFlight::decrementAndGet);
    }
}
