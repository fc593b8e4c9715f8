package io.pigeon.queue;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.PositiveDuration;
import io.pigeon.config.SettingsCheck;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Long-polling claims and pops (Pigeon's extension): how long a claim or pop may wait for a message, how many may
 * wait at once, and how long a replica's mark on a queue it holds waiters for lasts.
 *
 * <p>The long-polling of claims and pops: here rather than in io.pigeon.waiting because a queue's {@code
 * _claim_wait_seconds} is bound by it (io.pigeon.queue.ReservedAttributes) and waiting reads queue, not the other
 * way. Its own mapping, so that the feature that reads these keys owns them; the keys are unchanged ({@code
 * pigeon.claim-wait.*}, env {@code PIGEON_CLAIM_WAIT_*}).
 */
@ConfigMapping(prefix = "pigeon.claim-wait")
@ValidSettings
public interface ClaimWaitSettings extends CheckedSettings {

    /**
     * Longest wait, in seconds, a claim or pop may ask for (its body's {@code wait}, {@code Prefer: wait=N}, or its
     * queue's {@code _claim_wait_seconds}); a body's larger value is refused (400), a header's is capped.
     */
    @WithDefault("20")
    @Min(0)
    int max();

    /** Requests waiting at once on this replica; one more is refused (429). */
    @WithDefault("10000")
    @Min(1)
    int maxWaiters();

    /** Requests of one project waiting at once on this replica; one more is refused (429). */
    @WithDefault("1000")
    @Min(1)
    int maxWaitersPerProject();

    /**
     * How long a replica's mark on a queue it holds waiters for outlives its last renewal: posts to the queue tell
     * the replicas (one NOTIFY each) while a mark is live, so this long after a replica's last waiter left.
     */
    @WithDefault("30s")
    @PositiveDuration
    Duration lease();

    /** How often a replica renews its marks (one statement per database); well under {@code lease}. */
    @WithDefault("10s")
    @PositiveDuration
    Duration renewal();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        SettingsCheck.below(problems, "pigeon.claim-wait.renewal", renewal(), "pigeon.claim-wait.lease", lease());
        return problems;
    }
}
