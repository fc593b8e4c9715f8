package io.pigeon.api.view;

import io.pigeon.queuemetrics.QueueMetricsStore.QueueReading;
import io.pigeon.queuemetrics.QueueSeries;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The per-queue series in Prometheus's text format (version 0.0.4), named as the aggregate ones at /q/metrics are
 * ({@code pigeon_} then what is counted, {@code _total} on counters), each labelled with its {@code project} and its
 * {@code queue} (a topic: {@code topic}). A queue never sampled yet has its totals only. Label values are escaped as
 * the format asks (backslash, double quote, line feed), so a project id holding any of them cannot end a label or a
 * line. Every family is written whole, one after another, as the format requires. A fifo queue also has its blocked
 * groups; a queue of another ordering has no such series, as its groups never block.
 */
public final class QueueSeriesText {

    /** The media type of the answer. */
    public static final String MEDIA_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private static final String MESSAGES = "pigeon_queue_messages";
    private static final String OLDEST = "pigeon_queue_oldest_ready_age_seconds";
    private static final String ESTIMATED = "pigeon_queue_messages_estimated";
    private static final String BLOCKED = "pigeon_queue_groups_blocked";
    private static final String NOTIFICATIONS = "pigeon_queue_notifications_total";

    /** One total of a queue: its name, what it counts, and where its value is read. */
    private record Total(String name, String help, ToLongFunction<QueueReading> value) {}

    private static final List<Total> TOTALS = List.of(
            new Total("pigeon_queue_messages_posted_total", "Messages posted to the queue", QueueReading::posted),
            new Total(
                    "pigeon_queue_messages_claimed_total",
                    "Messages of the queue taken by claims",
                    QueueReading::claimedTotal),
            new Total(
                    "pigeon_queue_messages_deleted_total",
                    "Messages of the queue deleted by clients, pops and purges",
                    QueueReading::deleted),
            new Total(
                    "pigeon_queue_claims_empty_total",
                    "Claims on the queue answered with no message",
                    QueueReading::emptyClaims),
            new Total(
                    "pigeon_queue_messages_dead_lettered_total",
                    "Messages moved from the queue to its dead-letter queue",
                    QueueReading::deadLettered));

    private QueueSeriesText() {}

    /** The answer as Prometheus reads it. */
    public static String of(QueueSeries.Answer answer) {
        StringBuilder text = new StringBuilder(256 + answer.queues().size() * 1024);
        if (!answer.enabled()) {
            return text.append("# Per-queue metrics are off (pigeon.queue-metrics.enabled=false).\n")
                    .toString();
        }
        List<QueueReading> queues = answer.queues();
        family(text, MESSAGES, "gauge", "Messages of the queue by state (ready, claimed, delayed), as last sampled");
        for (String state : List.of("ready", "claimed", "delayed")) {
            for (QueueReading queue : queues) {
                if (queue.sampled()) {
                    Long count =
                            switch (state) {
                                case "ready" -> queue.ready();
                                case "claimed" -> queue.claimed();
                                default -> queue.delayed();
                            };
                    sample(text, MESSAGES, queue, "state", state).append(count).append('\n');
                }
            }
        }
        family(text, OLDEST, "gauge", "Age of the queue's oldest ready message when last sampled (0: none ready)");
        for (QueueReading queue : queues) {
            if (queue.sampled()) {
                sample(text, OLDEST, queue, null, null)
                        .append(seconds(queue.oldestReadyAgeSeconds()))
                        .append('\n');
            }
        }
        family(
                text,
                ESTIMATED,
                "gauge",
                "1 when the queue held more messages than one sample counts and its counts are estimated");
        for (QueueReading queue : queues) {
            if (queue.sampled() && queue.estimated()) {
                sample(text, ESTIMATED, queue, null, null).append("1\n");
            }
        }
        family(
                text,
                BLOCKED,
                "gauge",
                "Groups of a fifo queue a live claim held a message of when last sampled (fifo queues only)");
        for (QueueReading queue : queues) {
            if (queue.sampled() && queue.blockedGroups() != null) {
                sample(text, BLOCKED, queue, null, null)
                        .append(queue.blockedGroups())
                        .append('\n');
            }
        }
        for (Total total : TOTALS) {
            family(text, total.name(), "counter", total.help());
            for (QueueReading queue : queues) {
                sample(text, total.name(), queue, null, null)
                        .append(total.value().applyAsLong(queue))
                        .append('\n');
            }
        }
        family(text, NOTIFICATIONS, "counter", "Notification calls to the queue's subscribers, by outcome");
        for (String outcome : List.of("delivered", "failed")) {
            for (QueueReading queue : queues) {
                sample(text, NOTIFICATIONS, queue, "outcome", outcome)
                        .append(
                                outcome.equals("delivered")
                                        ? queue.notificationsDelivered()
                                        : queue.notificationsFailed())
                        .append('\n');
            }
        }
        family(
                text,
                "pigeon_queue_series_truncated",
                "gauge",
                "1 when queues past pigeon.queue-metrics.max-series were left out of this answer: filter by project,"
                        + " queue or topic");
        text.append("pigeon_queue_series_truncated ")
                .append(answer.truncated() ? 1 : 0)
                .append('\n');
        if (answer.truncated()) {
            text.append("# Truncated at pigeon.queue-metrics.max-series: filter by project, queue or topic to see the")
                    .append(" queues left out.\n");
        }
        family(
                text,
                "pigeon_queue_databases_unreadable",
                "gauge",
                "Databases whose queues are missing from this answer: they could not be read");
        text.append("pigeon_queue_databases_unreadable ")
                .append(answer.unreadableDatabases())
                .append('\n');
        return text.toString();
    }

    private static void family(StringBuilder text, String name, String type, String help) {
        text.append("# HELP ").append(name).append(' ').append(help).append('\n');
        text.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    /** A sample's name and labels, up to the space before its value. */
    private static StringBuilder sample(
            StringBuilder text, String name, QueueReading queue, String label, String value) {
        text.append(name).append("{project=\"");
        escaped(text, queue.project());
        text.append(queue.topic() ? "\",topic=\"" : "\",queue=\"");
        escaped(text, queue.name());
        text.append('"');
        if (label != null) {
            text.append(',').append(label).append("=\"").append(value).append('"');
        }
        return text.append("} ");
    }

    /** A label value as the text format carries it: backslash, double quote and line feed escaped. */
    static void escaped(StringBuilder text, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> text.append("\\\\");
                case '"' -> text.append("\\\"");
                case '\n' -> text.append("\\n");
                default -> text.append(c);
            }
        }
    }

    private static String seconds(double seconds) {
        return Double.toString(Math.round(seconds * 1000) / 1000.0);
    }
}
