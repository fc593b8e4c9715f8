package io.pigeon.queue;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.SettingsCheck;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.util.ArrayList;
import java.util.List;

/**
 * Idempotent posts: how long a queue remembers the keys of its posts.
 *
 * <p>The bounds of a queue's {@code _dedup_window_seconds}: here beside the other queue attributes' bounds, since
 * both the queue attributes (io.pigeon.queue) and the post keys (io.pigeon.message) read them. Its own mapping, so
 * that the feature that reads these keys owns them; the keys are unchanged ({@code pigeon.idempotency.*}, env
 * {@code PIGEON_IDEMPOTENCY_*}).
 */
@ConfigMapping(prefix = "pigeon.idempotency")
@ValidSettings
public interface IdempotencySettings extends CheckedSettings {

    /** A queue's {@code _dedup_window_seconds} when it sets none: SQS's five minutes. */
    @WithDefault("300")
    @Min(1)
    int defaultWindow();

    /** Largest {@code _dedup_window_seconds} a queue may set, in seconds. */
    @WithDefault("3600")
    @Min(1)
    int maxWindow();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        SettingsCheck.atMost(
                problems,
                "pigeon.idempotency.default-window",
                defaultWindow(),
                "pigeon.idempotency.max-window",
                maxWindow());
        return problems;
    }
}
