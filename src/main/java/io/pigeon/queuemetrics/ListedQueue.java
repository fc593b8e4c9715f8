package io.pigeon.queuemetrics;

/**
 * One queue of the console's table: its last sample (null counts: never sampled yet), the age of its oldest ready
 * message when sampled (null: none ready), the dead-letter queue it names, and the queues that name it as theirs (the
 * first {@value QueueMetricsStore#SOURCES_NAMED}, and how many there are). A value of the per-queue metrics, not a
 * store's row, so that the table's readers depend on what a queue is listed with, not on how it is read.
 */
public record ListedQueue(
        String name,
        Long ready,
        Long claimed,
        Long delayed,
        boolean estimated,
        Double oldestReadyAgeSeconds,
        String deadLetterQueue,
        String deadLetterSources,
        long deadLetterSourceCount) {

    /** How many of the queues that name this one as their dead-letter queue are named in {@link #deadLetterSources}. */
    public static final int SOURCES_NAMED = QueueMetricsStore.SOURCES_NAMED;
}
