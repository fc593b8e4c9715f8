package io.pigeon.storage;

/**
 * Periodic work that one replica at a time does on each database (the quota usage count, the sample of every queue):
 * its statement takes a transaction-scoped advisory lock without waiting ({@code pg_try_advisory_xact_lock}) and does
 * its work only when it got it, so another replica's statement meanwhile does nothing and says so. The lock ends with
 * the statement, so a replica that dies mid-work holds nothing, and no replica ever waits for another. Each kind of
 * work has its own key, listed here so that no two collide.
 */
public enum OneReplicaAtATime {
    /** The quota usage count ({@code io.pigeon.quota.UsageCheck}). */
    USAGE_CHECK(0x70696765_6f6e7175L),
    /** The sample of every queue's messages ({@code io.pigeon.queuemetrics.QueueSampler}). */
    QUEUE_SAMPLE(0x70696765_6f6e7173L);

    /** Whether this statement holds the lock: a boolean SQL expression for the statement's other parts. */
    public static final String HELD = "(SELECT held FROM lock)";

    private final long key;

    OneReplicaAtATime(long key) {
        this.key = key;
    }

    /** The advisory lock's key, the value of the statement's lock parameter. */
    public long key() {
        return key;
    }

    /**
     * The common table expression {@code lock (held)} that takes the lock whose key is the statement's parameter
     * {@code parameter} (such as {@code $3}); the rest of the statement asks {@link #HELD}.
     */
    public static String lock(String parameter) {
        return "lock AS (SELECT pg_try_advisory_xact_lock(" + parameter + ") AS held)";
    }
}
