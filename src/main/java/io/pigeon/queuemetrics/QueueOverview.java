package io.pigeon.queuemetrics;

import io.pigeon.observability.QueueMetricsSettings;
import io.pigeon.pool.PoolClients;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.pigeon.rules.Rejection;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * A project's queues as the console's table shows them: one page, in the order asked, with each queue's last sample
 * (never a count made for the page) and its dead-letter links. The page is cut in SQL on each database; with pools,
 * each database gives the first pages up to the one asked and they are merged, so a page costs the same however many
 * queues lie past it.
 */
@ApplicationScoped
public class QueueOverview {

    /** Largest page number asked: past a project's queue quota, and bounds what a merge across pools reads. */
    public static final int MAX_PAGE = 10_000;

    /** Largest page size an operator may configure ({@code pigeon.console.queues-per-page}). */
    static final int MAX_PAGE_SIZE = 500;

    /** The orders the table offers: by name (ascending), or by a count or the oldest ready age (largest first). */
    public enum Sort {
        NAME,
        READY,
        CLAIMED,
        DELAYED,
        AGE;

        /** As written in a URL and sent to the statement. */
        public String text() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The order named by {@code text}; null or empty is by name; anything else is refused (400). */
        public static Sort of(String text) {
            if (text == null || text.isEmpty()) {
                return NAME;
            }
            return Arrays.stream(values())
                    .filter(sort -> sort.text().equals(text))
                    .findFirst()
                    .orElseThrow(() -> Rejection.invalidParameter(
                            "sort", "It must be one of name, ready, claimed, delayed or age."));
        }
    }

    /** One page of the table, with the total of queues the filter selects (for the page count). */
    public record Page(
            List<ListedQueue> queues,
            long total,
            int page,
            int pageSize,
            Sort sort,
            String filter,
            boolean sampling,
            long samplePeriodSeconds) {

        public long pages() {
            return Math.max(1, (total + pageSize - 1) / pageSize);
        }
    }

    private final PoolClients databases;
    private final QueueDatabases placements;
    private final QueueMetricsStore store;
    private final QueueService queues;
    private final QueueMetricsSettings queueMetricsSettings;

    public QueueOverview(
            PoolClients databases,
            QueueDatabases placements,
            QueueMetricsStore store,
            QueueService queues,
            QueueMetricsSettings queueMetricsSettings) {
        this.queueMetricsSettings = queueMetricsSettings;
        this.databases = databases;
        this.placements = placements;
        this.store = store;
        this.queues = queues;
    }

    /**
     * Page {@code page} (from 1) of the project's queues whose names contain {@code filter} (null or empty: every
     * queue), in {@code sort} order. The filter is at most {@value QueueName#MAX_LENGTH} characters and the page at most
     * {@value #MAX_PAGE}, else 400 naming the parameter. A page holds {@code pageSize} queues (the console's
     * {@code pigeon.console.queues-per-page}), at most {@value #MAX_PAGE_SIZE}.
     */
    public Uni<Page> page(String project, String filter, Sort sort, int page, int pageSize) {
        String contains = filter == null ? "" : filter;
        if (contains.length() > QueueName.MAX_LENGTH || contains.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw Rejection.invalidParameter(
                    "filter",
                    "It is a part of a queue name: at most " + QueueName.MAX_LENGTH
                            + " characters, none of them a control character.");
        }
        if (page < 1 || page > MAX_PAGE) {
            throw Rejection.invalidParameter("page", "It must be an integer from 1 to " + MAX_PAGE + ".");
        }
        int size = Math.max(1, Math.min(MAX_PAGE_SIZE, pageSize));
        int offset = (page - 1) * size;
        boolean sampling = queueMetricsSettings.enabled();
        long period = queueMetricsSettings.samplePeriod().toSeconds();
        Uni<List<ListedQueue>> rows = databases.everyDatabase().chain(every -> {
            if (every.size() == 1) {
                return store.overview(
                        every.get(0).client(),
                        new QueueMetricsStore.OverviewQuery(project, contains, size, offset, sort.text()));
            }
            QueueMetricsStore.OverviewQuery firstPages =
                    new QueueMetricsStore.OverviewQuery(project, contains, offset + size, 0, sort.text());
            return databases
                    .onEvery(database -> store.overview(database.client(), firstPages))
                    .map(pages -> pages.stream()
                            .flatMap(List::stream)
                            .sorted(order(sort))
                            .skip(offset)
                            .limit(size)
                            .toList());
        });
        return Uni.combine()
                .all()
                .unis(rows, queues.count(project, contains.isEmpty() ? null : contains))
                .with((found, total) -> new Page(found, total, page, size, sort, contains, sampling, period));
    }

    /** One queue's last sample and totals, as /q/metrics/queues serves them; empty when the queue does not exist. */
    public Uni<Optional<QueueStatus>> one(String project, QueueName queue) {
        return PlacedQueue.of(placements, project, queue)
                .chain(placed -> store.read(placed.db(), List.of(project), List.of(placed.storedName()), 1))
                .map(read -> read.stream().findFirst().map(QueueStatus::of));
    }

    /**
     * A queue's flow over the last hour, minute by minute: messages posted and consumed (deleted) per second, averaged
     * over each minute, from the history the sample keeps; 0 in a minute without a change. {@code minutes} are unix
     * seconds, the oldest first, the current (partial) minute last.
     */
    public record Flow(List<Long> minutes, List<Double> postedPerSecond, List<Double> consumedPerSecond) {}

    /** The queue's flow over the last {@value QueueMetricsStore#HISTORY_MINUTES} minutes. */
    public Uni<Flow> flow(String project, QueueName queue) {
        return PlacedQueue.of(placements, project, queue).chain(store::history).map(QueueOverview::flowOf);
    }

    /**
     * The flows of a page of the project's queues, by name, for the table's sparklines: one statement per database
     * for the whole page, never one per queue. A queue without history is absent (it has had no flow).
     */
    public Uni<Map<String, Flow>> flows(String project, List<String> names) {
        if (names.isEmpty()) {
            return Uni.createFrom().item(Map.of());
        }
        return databases
                .onEvery(database -> store.histories(database.client(), project, names))
                .map(every -> {
                    Map<String, Flow> flows = new HashMap<>();
                    for (Map<String, QueueMetricsStore.History> histories : every) {
                        histories.forEach((name, history) -> flows.put(name, flowOf(history)));
                    }
                    return flows;
                });
    }

    static Flow flowOf(QueueMetricsStore.History history) {
        int count = QueueMetricsStore.HISTORY_MINUTES;
        List<Long> minutes = new ArrayList<>(count);
        List<Double> posted = new ArrayList<>(count);
        List<Double> consumed = new ArrayList<>(count);
        List<QueueMetricsStore.Point> points = new ArrayList<>(history.points());
        if (points.size() < QueueMetricsStore.HISTORY_MINUTES + 2) {
            // Every point the queue has: the oldest is its first, whose base is the 0 its totals started at.
            points.add(new QueueMetricsStore.Point(0, 0, 0));
        }
        long last = (long) history.thisMinute();
        for (int i = count - 1; i >= 0; i--) {
            long minute = last - 60L * i;
            minutes.add(minute);
            double postedRate = 0;
            double consumedRate = 0;
            for (int p = 0; p + 1 < points.size(); p++) {
                if ((long) points.get(p).minute() == minute) {
                    QueueMetricsStore.Point before = points.get(p + 1);
                    postedRate = Math.max(0, points.get(p).posted() - before.posted()) / 60.0;
                    consumedRate = Math.max(0, points.get(p).deleted() - before.deleted()) / 60.0;
                    break;
                }
            }
            posted.add(postedRate);
            consumed.add(consumedRate);
        }
        return new Flow(minutes, posted, consumed);
    }

    /** The statements' order, for merging the pages of several databases. */
    private static Comparator<ListedQueue> order(Sort sort) {
        Comparator<ListedQueue> byName = Comparator.comparing(ListedQueue::name);
        Function<ListedQueue, Double> key =
                switch (sort) {
                    case NAME -> row -> 0.0;
                    case READY -> row ->
                            row.ready() == null ? null : row.ready().doubleValue();
                    case CLAIMED -> row ->
                            row.claimed() == null ? null : row.claimed().doubleValue();
                    case DELAYED -> row ->
                            row.delayed() == null ? null : row.delayed().doubleValue();
                    case AGE -> row -> row.oldestReadyAgeSeconds() == null
                            ? null
                            : (double) row.oldestReadyAgeSeconds().longValue();
                };
        return Comparator.comparing(key, Comparator.nullsLast(Comparator.<Double>reverseOrder()))
                .thenComparing(byName);
    }
}
