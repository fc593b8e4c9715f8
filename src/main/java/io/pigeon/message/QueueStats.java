package io.pigeon.message;

import java.time.OffsetDateTime;

/**
 * Counts of a queue's live messages, and its oldest and newest (null when the queue is empty). {@code free} counts every
 * message no live claim holds, delayed ones included (as Zaqar's stats do); {@code delayed} how many of those are not
 * visible yet.
 */
public record QueueStats(long free, long claimed, long delayed, Edge oldest, Edge newest) {

    public long total() {
        return free + claimed;
    }

    /** The oldest or newest message: id, age in seconds and when it was posted. */
    public record Edge(long id, long age, OffsetDateTime created) {}
}
