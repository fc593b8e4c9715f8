package io.pigeon.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The ratio benchmark's closing tables, in markdown so that they go into docs/benchmarks.md as printed: per layout and
 * client count, messages/s of the peers and of Pigeon (and the before build), the ratios to PGMQ, the CPU the system
 * under test spent per 1,000 messages, WAL bytes per message, and commits per request. Each figure is the median
 * over the rounds; a CPU split (PostgreSQL + JVM) is the one of the round whose total is the median.
 */
final class RatioSummary {

    private final boolean withBefore;
    private final List<String> rows = new ArrayList<>();
    private final List<String> commitRows = new ArrayList<>();
    private final PerCoreGoal goal = new PerCoreGoal();

    RatioSummary(boolean withBefore) {
        this.withBefore = withBefore;
    }

    /** One cell of the run: every round's runs of each contestant (empty when it did not run). */
    void add(
            String layout,
            int clients,
            List<RatioBench.Run> minimal,
            List<RatioBench.Run> pgmq,
            List<RatioBench.Run> pigeon,
            List<RatioBench.Run> before) {
        String name = layout.equals("shared") ? "one shared queue" : "a queue per client";
        double pgmqRate = median(pgmq, RatioBench.Run::messagesPerSecond);
        List<String> cells = new ArrayList<>(List.of(
                name,
                String.valueOf(clients),
                rate(median(minimal, RatioBench.Run::messagesPerSecond)),
                rate(pgmqRate),
                rate(median(pigeon, RatioBench.Run::messagesPerSecond))));
        if (withBefore) {
            cells.add(rate(median(before, RatioBench.Run::messagesPerSecond)));
        }
        cells.add(ratio(median(pigeon, RatioBench.Run::messagesPerSecond), pgmqRate));
        if (withBefore) {
            cells.add(ratio(median(before, RatioBench.Run::messagesPerSecond), pgmqRate));
        }
        cells.add(cpu(minimal));
        cells.add(cpu(pgmq));
        cells.add(cpu(pigeon));
        if (withBefore) {
            cells.add(cpu(before));
        }
        cells.add(number(median(pgmq, RatioSummary::walPerMessage)));
        cells.add(number(median(pigeon, RatioSummary::walPerMessage)));
        if (withBefore) {
            cells.add(number(median(before, RatioSummary::walPerMessage)));
        }
        rows.add(row(cells));
        List<String> commits = new ArrayList<>(
                List.of(name, String.valueOf(clients), commits(minimal), commits(pgmq), commits(pigeon)));
        if (withBefore) {
            commits.add(commits(before));
        }
        commitRows.add(row(commits));
        if (!pgmq.isEmpty() && !pigeon.isEmpty()) {
            goal.add(new PerCoreGoal.Cell(
                    layout,
                    clients,
                    pgmqRate,
                    median(pigeon, RatioBench.Run::messagesPerSecond),
                    median(pgmq, RatioSummary::cpuPerThousand),
                    median(pigeon, RatioSummary::cpuPerThousand),
                    median(pgmq, RatioSummary::walPerMessage),
                    median(pigeon, RatioSummary::walPerMessage)));
        }
    }

    /** The cells as issue 41's goal reads them. */
    PerCoreGoal goal() {
        return goal;
    }

    /** The tables, Pigeon's column being {@code api} over HTTP. */
    void print(String api) {
        if (rows.isEmpty()) {
            return;
        }
        List<String> header = new ArrayList<>(List.of("layout", "clients", "minimal SQL", "PGMQ", "Pigeon " + api));
        if (withBefore) {
            header.add("Pigeon before");
        }
        header.add("Pigeon / PGMQ");
        if (withBefore) {
            header.add("before / PGMQ");
        }
        header.addAll(List.of("CPU: minimal", "CPU: PGMQ", "CPU: Pigeon (PG + JVM)"));
        if (withBefore) {
            header.add("CPU: before (PG + JVM)");
        }
        header.addAll(List.of("WAL B/msg: PGMQ", "WAL: Pigeon"));
        if (withBefore) {
            header.add("WAL: before");
        }
        System.out.printf(
                "%nSummary (messages/s; CPU ms per 1,000 messages of the system under test; WAL bytes per message; "
                        + "medians of the rounds):%n%n");
        System.out.println(row(header));
        System.out.println(row(header.stream().map(h -> "---").toList()));
        rows.forEach(System.out::println);
        List<String> commitHeader = new ArrayList<>(List.of(
                "layout",
                "clients",
                "minimal: commits / pgbench transaction",
                "PGMQ: commits / pgbench transaction",
                "Pigeon: commits / HTTP request"));
        if (withBefore) {
            commitHeader.add("before: commits / HTTP request");
        }
        System.out.printf("%nCommits (pg_stat_database, the contestant's database; medians of the rounds):%n%n");
        System.out.println(row(commitHeader));
        System.out.println(row(commitHeader.stream().map(h -> "---").toList()));
        commitRows.forEach(System.out::println);
    }

    private static double cpuPerThousand(RatioBench.Run run) {
        return run.cost().systemPerThousand(run.messages());
    }

    private static double walPerMessage(RatioBench.Run run) {
        return run.cost().walPerMessage(run.messages());
    }

    private static String cpu(List<RatioBench.Run> runs) {
        if (runs.isEmpty()) {
            return "-";
        }
        List<RatioBench.Run> sorted = runs.stream()
                .sorted(Comparator.comparingDouble(r -> r.cost().systemPerThousand(r.messages())))
                .toList();
        RatioBench.Run middle = sorted.get(sorted.size() / 2);
        long messages = middle.messages();
        if (!middle.cost().withJvm()) {
            return number(middle.cost().postgresPerThousand(messages));
        }
        return String.format(
                Locale.ROOT,
                "%s (%s + %s)",
                number(middle.cost().systemPerThousand(messages)),
                number(middle.cost().postgresPerThousand(messages)),
                number(middle.cost().jvmPerThousand(messages)));
    }

    private static String commits(List<RatioBench.Run> runs) {
        double median = median(runs, r -> r.cost().transactionsPer(r.units()));
        return Double.isNaN(median) ? "-" : String.format(Locale.ROOT, "%.2f", median);
    }

    static double median(List<RatioBench.Run> runs, ToDoubleFunction<RatioBench.Run> figure) {
        if (runs == null || runs.isEmpty()) {
            return Double.NaN;
        }
        double[] sorted = runs.stream().mapToDouble(figure).sorted().toArray();
        return sorted[sorted.length / 2];
    }

    private static String rate(double value) {
        return number(value);
    }

    private static String number(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%,.0f", value);
    }

    private static String ratio(double value, double peer) {
        return Double.isNaN(value) || Double.isNaN(peer) ? "-" : String.format(Locale.ROOT, "%.2f", value / peer);
    }

    private static String row(List<String> cells) {
        return "| " + String.join(" | ", cells) + " |";
    }
}
