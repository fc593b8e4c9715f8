package io.pigeon.redrive;

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
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * Dead-letter redrive (Pigeon's extension, {@code POST /v2/queues/{name}/redrive}): how fast a task may move
 * messages, how many tasks a project may hold, how long ended ones are kept, and how replicas share the running.
 *
 * <p>The rates, bounds and leases of dead-letter redrive (io.pigeon.redrive). Its own mapping, so that the feature
 * that reads these keys owns them; the keys are unchanged ({@code pigeon.redrive.*}, env {@code PIGEON_REDRIVE_*}).
 */
@ConfigMapping(prefix = "pigeon.redrive")
@ValidSettings
public interface RedriveSettings extends CheckedSettings {

    /** A task's rate, in messages per second, when its request names none. */
    @WithDefault("100")
    @Min(1)
    int defaultRate();

    /** The largest rate, in messages per second, a task may ask for; a larger one is refused (400). */
    @WithDefault("1000")
    @Min(1)
    int maxRate();

    /**
     * Tasks one project may hold on one database (the configured one or a pool), running or ended and kept: a new
     * task takes the place of the project's oldest ended one there; with this many running, it is refused (429).
     */
    @WithDefault("100")
    @Min(1)
    int maxTasksPerProject();

    /** How long an ended task (done, cancelled or failed) is kept, for its GET, before the sweeper deletes it. */
    @WithDefault("7d")
    @PositiveDuration
    Duration retention();

    /**
     * How long a replica's hold on a task it runs outlives its last batch: a task whose replica died is taken by
     * another this long after its last batch at most (plus {@code poll-interval}). Well above one second, the
     * longest wait between two batches.
     */
    @WithDefault("10s")
    @DurationMin(seconds = 1, inclusive = false, message = "must be a duration above 1 s (e.g. 10s)")
    Duration lease();

    /** How often each replica looks, on every database, for running tasks that no replica holds. */
    @WithDefault("2s")
    @PositiveDuration
    Duration pollInterval();

    /** Tasks one replica runs at once; the others wait for a replica with room. */
    @WithDefault("16")
    @Min(1)
    int maxRunningPerReplica();

    /**
     * Of the tasks one replica runs at once, how many one project's may be: its further tasks wait (on any replica)
     * until one of its own ends, so that another project's task finds a place at once. At most
     * {@code max-running-per-replica}.
     */
    @WithDefault("4")
    @Min(1)
    int maxRunningPerProjectPerReplica();

    /**
     * Most messages one batch (one statement, one transaction) moves. A task moves about a fifth of its rate per
     * batch, five batches a second, up to this.
     */
    @WithDefault("500")
    @Min(1)
    int maxBatch();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        SettingsCheck.atMost(
                problems, "pigeon.redrive.default-rate", defaultRate(), "pigeon.redrive.max-rate", maxRate());
        SettingsCheck.atMost(
                problems,
                "pigeon.redrive.max-running-per-project-per-replica",
                maxRunningPerProjectPerReplica(),
                "pigeon.redrive.max-running-per-replica",
                maxRunningPerReplica());
        return problems;
    }
}
