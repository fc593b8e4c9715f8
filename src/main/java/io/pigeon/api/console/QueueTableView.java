package io.pigeon.api.console;

import io.pigeon.queuemetrics.ListedQueue;
import io.pigeon.queuemetrics.QueueOverview;
import io.quarkus.qute.TemplateData;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A project's table of queues as it is shown: each queue's last sample, its dead-letter links and its sparklines, the
 * sort links and the pages, made from the page {@link QueueOverview} answers. A plain factory: values in, text out.
 */
public final class QueueTableView {

    private QueueTableView() {}

    @TemplateData
    public record QueueRow(
            String name,
            String href,
            String ready,
            String claimed,
            String delayed,
            String oldestReadyAge,
            boolean estimated,
            String deadLetterQueue,
            boolean deadLetter,
            String deadLetterSources,
            String flowPosted,
            String flowConsumed,
            String flowLabel) {}

    @TemplateData
    public record SortLink(String label, String href, boolean current) {}

    @TemplateData
    public record Queues(
            ConsoleViews.Frame frame,
            List<QueueRow> rows,
            List<SortLink> sorts,
            String filter,
            String sort,
            long page,
            long pages,
            long total,
            String previousHref,
            String nextHref,
            String sampleNote) {}

    /** The table of the project's page {@code found}, with the flows of its queues by name. */
    static Queues of(
            ConsoleViews.Frame frame, String project, QueueOverview.Page found, Map<String, QueueOverview.Flow> flows) {
        String base = ConsolePages.projectHref(project);
        List<QueueRow> rows = new ArrayList<>(found.queues().size());
        for (ListedQueue row : found.queues()) {
            QueueOverview.Flow flow = flows.get(row.name());
            rows.add(new QueueRow(
                    row.name(),
                    base + "/queues/" + row.name(),
                    ConsoleViews.count(row.ready()),
                    ConsoleViews.count(row.claimed()),
                    ConsoleViews.count(row.delayed()),
                    row.ready() == null ? "–" : ConsoleViews.duration(row.oldestReadyAgeSeconds()),
                    row.estimated(),
                    row.deadLetterQueue(),
                    row.deadLetterSourceCount() > 0,
                    row.deadLetterSourceCount() > ListedQueue.SOURCES_NAMED
                            ? String.format(
                                    "%s and %,d more",
                                    row.deadLetterSources(), row.deadLetterSourceCount() - ListedQueue.SOURCES_NAMED)
                            : row.deadLetterSources(),
                    sparkline(flow == null ? null : flow.postedPerSecond()),
                    sparkline(flow == null ? null : flow.consumedPerSecond()),
                    flow == null
                            ? "No flow in the last hour"
                            : String.format(
                                    "In the last hour: %,.0f posted, %,.0f consumed",
                                    ConsoleViews.sum(flow.postedPerSecond()) * 60,
                                    ConsoleViews.sum(flow.consumedPerSecond()) * 60)));
        }
        List<SortLink> sorts = new ArrayList<>();
        for (QueueOverview.Sort one : QueueOverview.Sort.values()) {
            sorts.add(new SortLink(one.text(), listHref(base, found.filter(), one, 1), one == found.sort()));
        }
        String note = found.sampling()
                ? "Counts are the last sample, taken every " + found.samplePeriodSeconds()
                        + " s; – means not sampled yet."
                : "Per-queue metrics are off (pigeon.queue-metrics.enabled=false): no counts are shown.";
        return new Queues(
                frame,
                rows,
                sorts,
                found.filter(),
                found.sort().text(),
                found.page(),
                found.pages(),
                found.total(),
                found.page() > 1 ? listHref(base, found.filter(), found.sort(), found.page() - 1) : null,
                found.page() < found.pages() ? listHref(base, found.filter(), found.sort(), found.page() + 1) : null,
                note);
    }

    /**
     * A row's rates for its sparkline, as short as they can be written (a page carries one per queue): "0" for a minute
     * without change, else at most two decimals; empty when the queue has had no flow (drawn flat).
     */
    private static String sparkline(List<Double> perSecond) {
        if (perSecond == null || perSecond.stream().allMatch(rate -> rate == 0)) {
            return "";
        }
        StringBuilder text = new StringBuilder();
        for (Double rate : perSecond) {
            if (!text.isEmpty()) {
                text.append(',');
            }
            text.append(
                    rate == 0
                            ? "0"
                            : new BigDecimal(rate)
                                    .setScale(2, RoundingMode.HALF_UP)
                                    .stripTrailingZeros()
                                    .toPlainString());
        }
        return text.toString();
    }

    private static String listHref(String base, String filter, QueueOverview.Sort sort, long page) {
        StringBuilder href = new StringBuilder(base).append("?sort=").append(sort.text());
        if (filter != null && !filter.isEmpty()) {
            href.append("&filter=").append(ConsoleViews.segment(filter));
        }
        return href.append("&page=").append(page).toString();
    }
}
