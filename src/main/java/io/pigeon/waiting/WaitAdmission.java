package io.pigeon.waiting;

import io.pigeon.rules.Rejection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many requests may wait at once on this replica: in all, per project, and per pre-signed grant (whose waiters do
 * not count against their project, so that a grant's holder cannot take the project's places). A request past a bound
 * is refused (429) before it waits; an admitted one is counted until it leaves its line, however it leaves.
 */
final class WaitAdmission {

    private final int maxWaiters;
    private final int maxPerProject;
    private final int maxPerGrant;
    private final String perReplicaRefusal;
    private final String perProjectRefusal;
    private final String perGrantRefusal;

    private final AtomicInteger waiting = new AtomicInteger();
    private final Map<String, Integer> waitingPerProject = new ConcurrentHashMap<>();
    /** By the signature of the pre-signed grant that admitted them: they do not count against their project. */
    private final Map<String, Integer> waitingPerGrant = new ConcurrentHashMap<>();

    WaitAdmission(int maxWaiters, int maxPerProject, int maxPerGrant) {
        this.maxWaiters = maxWaiters;
        this.maxPerProject = maxPerProject;
        this.maxPerGrant = maxPerGrant;
        this.perReplicaRefusal = "This server holds " + maxWaiters
                + " waiting claims and pops, its limit (pigeon.claim-wait.max-waiters); try again without waiting.";
        this.perProjectRefusal = "The project has " + maxPerProject
                + " waiting claims and pops on this server, its limit (pigeon.claim-wait.max-waiters-per-project).";
        this.perGrantRefusal = "The pre-signed URL has " + maxPerGrant
                + " waiting claims and pops on this server, its limit (pigeon.signed-url.max-waiters-per-grant).";
    }

    /**
     * Counts one more waiter of {@code project}, admitted by {@code grant} (null: by the project's own credentials);
     * refused (429), counting nothing, past the replica's bound or the grant's or the project's.
     */
    void admit(String project, String grant) {
        if (waiting.incrementAndGet() > maxWaiters) {
            waiting.decrementAndGet();
            throw new Rejection(Rejection.Reason.QUOTA_BACKLOG, perReplicaRefusal);
        }
        boolean admitted = grant == null
                ? countIn(waitingPerProject, project, maxPerProject)
                : countIn(waitingPerGrant, grant, maxPerGrant);
        if (!admitted) {
            waiting.decrementAndGet();
            throw new Rejection(Rejection.Reason.QUOTA_BACKLOG, grant == null ? perProjectRefusal : perGrantRefusal);
        }
    }

    /** Counts one more waiter of {@code holder}; false, counting nothing, when it holds {@code max} already. */
    private static boolean countIn(Map<String, Integer> counts, String holder, int max) {
        boolean[] admitted = new boolean[1];
        counts.compute(holder, (h, held) -> {
            int now = held == null ? 0 : held;
            if (now >= max) {
                return held;
            }
            admitted[0] = true;
            return now + 1;
        });
        return admitted[0];
    }

    /** A waiter admitted by {@link #admit} with the same arguments has left. */
    void left(String project, String grant) {
        waiting.decrementAndGet();
        (grant == null ? waitingPerProject : waitingPerGrant)
                .computeIfPresent(grant == null ? project : grant, (h, held) -> held <= 1 ? null : held - 1);
    }

    /** Requests waiting now. */
    int waiting() {
        return waiting.get();
    }
}
