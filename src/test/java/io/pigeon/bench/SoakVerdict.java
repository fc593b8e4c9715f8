package io.pigeon.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The soak's verdict ({@link SoakBench}): its start and end figures against bounds stated here, as a markdown table
 * that can go into docs/benchmarks.md as printed. The start is the first intervals, the end the last ones: latencies
 * as the median of the first and last three intervals' p99s (one interval in which another build on the machine
 * spikes the load must not decide), sizes, heaps and counts as the largest of the first third against the largest of
 * the last third (autovacuum makes tables and dead tuples saw up and down: a peak against a peak). The bounds:
 * <ul>
 *   <li>p99 of each request type and of the delivery lag at the end at most 1.5 times the start's: a leak that costs
 *       time per request (a growing index, a bloated table, a longer list in memory) shows as a rising p99 long
 *       before it fails;
 *   <li>each hot table's size (heap, TOAST, indexes) at most 1.25 times the first third's largest plus 1 MiB, and its
 *       dead tuples at most twice plus 10,000: after the first autovacuum cycles the space freed is reused, so a table
 *       that still grows by a quarter over the last two thirds is leaking rows or outrunning vacuum;
 *   <li>each replica's heap after a full GC at most 1.2 times the first third's largest plus 16 MiB: what survives a
 *       full GC is what Pigeon holds, and it should not depend on how long it has run;
 *   <li>each replica's database connections at most 2 more than in the first third (its pool is bounded; more means
 *       connections not given back), and the notifications waiting for delivery at most 1.5 times plus 100 (the
 *       dispatcher keeps up);
 *   <li>the load held: the answered requests/s of the last intervals at least 95 % of the offered, and no failed
 *       request, interval or scrape.
 * </ul>
 */
final class SoakVerdict {

    private final List<SoakBench.Interval> intervals;
    private final double offered;
    private final List<String> rows = new ArrayList<>();
    private boolean holds = true;

    SoakVerdict(List<SoakBench.Interval> intervals, double offered) {
        this.intervals = intervals;
        this.offered = offered;
    }

    /** Prints the table and says whether every figure held. */
    boolean print() {
        int n = intervals.size();
        int edge = Math.max(1, Math.min(3, n / 5));
        List<SoakBench.Interval> start = intervals.subList(0, edge);
        List<SoakBench.Interval> end = intervals.subList(n - edge, n);
        List<SoakBench.Interval> firstThird = intervals.subList(0, Math.max(1, n / 3));
        List<SoakBench.Interval> lastThird = intervals.subList(n - Math.max(1, n / 3), n);
        for (String type : intervals.get(0).p99().keySet()) {
            double before = median(start, i -> i.p99().get(type));
            double after = median(end, i -> i.p99().get(type));
            check("p99 " + type + " (ms)", before, after, 1.5 * before, "1.5 x start", "%.1f");
        }
        for (String table : SoakProbe.HOT_TABLES) {
            if (!intervals.get(0).state().tables().containsKey(table)) {
                continue;
            }
            double first = max(firstThird, i -> i.state().tables().get(table).bytes()) / 1048576.0;
            double last = max(lastThird, i -> i.state().tables().get(table).bytes()) / 1048576.0;
            check(table + " size (MB)", first, last, 1.25 * first + 1, "1.25 x + 1 MB", "%.1f");
            double deadFirst =
                    max(firstThird, i -> i.state().tables().get(table).dead());
            double deadLast = max(lastThird, i -> i.state().tables().get(table).dead());
            check(table + " dead tuples", deadFirst, deadLast, 2 * deadFirst + 10_000, "2 x + 10,000", "%.0f");
        }
        for (int r = 0; r < intervals.get(0).state().heaps().size(); r++) {
            int replica = r;
            double first = max(firstThird, i -> i.state().heaps().get(replica)) / 1048576.0;
            double last = max(lastThird, i -> i.state().heaps().get(replica)) / 1048576.0;
            check(
                    "heap after GC, replica " + (r + 1) + " (MB)",
                    first,
                    last,
                    1.2 * first + 16,
                    "1.2 x + 16 MB",
                    "%.1f");
        }
        for (String application : intervals.get(0).state().connections().keySet()) {
            double first = max(firstThird, i -> i.state().connections().getOrDefault(application, 0));
            double last = max(lastThird, i -> i.state().connections().getOrDefault(application, 0));
            check("connections " + application, first, last, first + 2, "+ 2", "%.0f");
        }
        double waitingFirst = max(firstThird, i -> i.state().waitingDeliveries());
        double waitingLast = max(lastThird, i -> i.state().waitingDeliveries());
        check(
                "notifications waiting for delivery",
                waitingFirst,
                waitingLast,
                1.5 * waitingFirst + 100,
                "1.5 x + 100",
                "%.0f");
        double answeredStart = median(start, SoakBench.Interval::answered);
        double answeredEnd = median(end, SoakBench.Interval::answered);
        rows.add(row(
                "answered requests/s (offered " + Math.round(offered) + ")",
                answeredStart,
                answeredEnd,
                0.95 * offered,
                ">= 95 % of offered",
                "%.0f",
                answeredEnd >= 0.95 * offered));
        long failedIntervals =
                intervals.stream().filter(i -> !i.failure().isEmpty()).count();
        SoakHook.Figures side = intervals.get(n - 1).side();
        check(
                "failed intervals, side requests, scrapes",
                0,
                failedIntervals + side.errors() + side.scrapeFailures(),
                0,
                "0",
                "%.0f");
        System.out.printf(
                Locale.ROOT,
                "%nVerdict (start: first %d interval(s) or first third; end: last %d or last third):%n%n"
                        + "| Figure | Start | End | Bound | Holds |%n|---|---|---|---|---|%n",
                edge,
                edge);
        rows.forEach(System.out::println);
        System.out.println(
                holds ? "\nSOAK HOLDS: every figure within its bound" : "\nSOAK FAILS: see the rows marked no");
        return holds;
    }

    /** A row whose end must be at most {@code limit} (a figure not measured fails). */
    private void check(String figure, double start, double end, double limit, String bound, String format) {
        rows.add(row(figure, start, end, limit, bound, format, !Double.isNaN(end) && end <= limit));
    }

    private String row(
            String figure, double start, double end, double limit, String bound, String format, boolean within) {
        holds &= within;
        return String.format(
                Locale.ROOT,
                "| %s | " + format + " | " + format + " | %s (" + format + ") | %s |",
                figure,
                start,
                end,
                bound,
                limit,
                within ? "yes" : "**no**");
    }

    private static double median(List<SoakBench.Interval> of, ToDoubleFunction<SoakBench.Interval> figure) {
        double[] values = of.stream()
                .mapToDouble(figure)
                .filter(v -> !Double.isNaN(v))
                .sorted()
                .toArray();
        return values.length == 0 ? Double.NaN : values[values.length / 2];
    }

    private static double max(List<SoakBench.Interval> of, ToDoubleFunction<SoakBench.Interval> figure) {
        return of.stream().mapToDouble(figure).max().orElse(Double.NaN);
    }
}
