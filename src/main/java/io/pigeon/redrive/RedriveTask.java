package io.pigeon.redrive;

import java.time.OffsetDateTime;
import java.util.Locale;
import java.util.UUID;

/**
 * A redrive task as its queue's owner sees it: which queue it moves messages out of (the name it is stored under), to
 * which {@code target} (null: each message back to the queue it was dead-lettered from), at what rate (messages per
 * second), how far it has come, and when it started and ended (null while it runs). {@code reason} says why a task
 * failed (null otherwise).
 */
public record RedriveTask(
        UUID id,
        String queue,
        String target,
        int rate,
        State state,
        long moved,
        long skipped,
        OffsetDateTime started,
        OffsetDateTime finished,
        String reason) {

    /** Where a task is; only {@link #RUNNING} moves messages, and a task that left it never comes back to it. */
    public enum State {
        /** Moving messages (or waiting for a replica to take it: its lease lapsed). */
        RUNNING,
        /** Every message that was in the queue when it started has been moved or skipped. */
        DONE,
        /** Cancelled by its owner; what it moved stays moved. */
        CANCELLED,
        /** Its queue was deleted while it ran. */
        FAILED;

        /** As stored and as answered: lower case. */
        public String text() {
            return name().toLowerCase(Locale.ROOT);
        }

        static State of(String stored) {
            return valueOf(stored.toUpperCase(Locale.ROOT));
        }
    }
}
