package io.pigeon.quota;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.SettingsCheck;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.util.ArrayList;
import java.util.List;

/**
 * Per-project limits: refused with 403 (a count the caller must lower) or 429 (a backlog that drains).
 *
 * <p>The per-project limits of io.pigeon.quota. Its own mapping, so that the feature that reads these keys owns
 * them; the keys are unchanged ({@code pigeon.quotas.*}, env {@code PIGEON_QUOTAS_*}).
 */
@ConfigMapping(prefix = "pigeon.quotas")
@ValidSettings
public interface QuotaSettings extends CheckedSettings {

    /** Queues one project may have. */
    @WithDefault("10000")
    @Min(1)
    int maxQueuesPerProject();

    /** Messages one queue may hold (counted every {@code check-interval}: a post can pass it by that much). */
    @WithDefault("10000000")
    @Min(1)
    int maxMessagesPerQueue();

    /** Live subscriptions one queue may have. */
    @WithDefault("100")
    @Min(1)
    int maxSubscriptionsPerQueue();

    /**
     * Delivery groups (/v3 pushes and notifications), pending or dead, one project may have (counted every
     * check-interval; "pending" in the name: a dead group counts until it is dropped or its retention ends).
     */
    @WithDefault("1000000")
    @Min(1)
    int maxPendingGroupsPerProject();

    /** /v3 items one project may hold in its pending and dead groups (counted every check-interval). */
    @WithDefault("1000000")
    @Min(1)
    int maxPendingItemsPerProject();

    /**
     * Bytes one project may hold in its pending and dead groups: /v3 item bodies, and each notification's row
     * (body, sealed body, headers, retry policy) (counted every check-interval).
     */
    @WithDefault("1073741824")
    @Min(1)
    long maxPendingBytesPerProject();

    /**
     * Items one /v3 group may hold; checked by the push itself, exactly, concurrent pushes included, and by a
     * requeue whose dead group's items would join a pending one.
     */
    @WithDefault("10000")
    @Min(1)
    int maxItemsPerGroup();

    /**
     * Notifications one post may queue (its messages times the queue's webhook subscribers, and its mail subscribers
     * where mail is on): a post of 20 messages (a page) to 50 subscribers, or of 200 to 5.
     */
    @WithDefault("1000")
    @Min(1)
    int maxNotificationsPerPost();

    /** How often the messages of each queue and the pending groups of each project are counted. */
    @WithDefault("30s")
    String checkInterval();

    /**
     * Keys of idempotent posts (Idempotency-Key headers and dedup_ids) one project may have remembered at once,
     * on each database (counted exactly by each post that takes new ones: never passed).
     */
    @WithDefault("100000")
    @Min(1)
    int maxPostKeysPerProject();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        SettingsCheck.interval(problems, "pigeon.quotas.check-interval", checkInterval(), false);
        return problems;
    }
}
