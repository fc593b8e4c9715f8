package io.pigeon.queuemetrics;

/**
 * One queue's last sample and its totals, as the console's queue page shows them: the counts are null when the queue
 * was never sampled, the totals 0 until something was counted. Made from the store's reading by {@link QueueOverview},
 * so that the page depends on what a queue's state is, not on the row /q/metrics/queues is read from.
 */
public record QueueStatus(
        Long ready,
        Long claimed,
        Long delayed,
        double oldestReadyAgeSeconds,
        long posted,
        long claimedTotal,
        long deleted,
        long deadLettered,
        long notificationsDelivered,
        long notificationsFailed) {

    /** Whether the queue was sampled at least once. */
    public boolean sampled() {
        return ready != null;
    }

    static QueueStatus of(QueueMetricsStore.QueueReading reading) {
        return new QueueStatus(
                reading.ready(),
                reading.claimed(),
                reading.delayed(),
                reading.oldestReadyAgeSeconds(),
                reading.posted(),
                reading.claimedTotal(),
                reading.deleted(),
                reading.deadLettered(),
                reading.notificationsDelivered(),
                reading.notificationsFailed());
    }
}
