package io.pigeon.subscription;

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
 * Subscriptions of sockets to queues (Zaqar's websocket self-subscription): how many, how long a replica's hold on
 * them lasts, and how the messages posted to their queues are read back for them.
 *
 * <p>The bounds and leases of sockets' subscriptions to queues (io.pigeon.subscription.SocketPushes). Its own
 * mapping, so that the feature that reads these keys owns them; the keys are unchanged ({@code
 * pigeon.socket-subscriptions.*}, env {@code PIGEON_SOCKET_SUBSCRIPTIONS_*}).
 */
@ConfigMapping(prefix = "pigeon.socket-subscriptions")
@ValidSettings
public interface SocketSubscriptionSettings extends CheckedSettings {

    /** Queues one socket may be subscribed to at once; a subscription past it is refused (403). */
    @WithDefault("100")
    @Min(1)
    int maxPerSocket();

    /**
     * Live socket subscriptions one project may have on one database (the configured one or a pool), whatever
     * socket or replica holds them; a subscription past it is refused (403).
     */
    @WithDefault("1000")
    @Min(1)
    int maxPerProject();

    /**
     * How long a socket subscription outlives the last renewal by the replica that holds its socket: the rows of
     * a replica that died are swept this long after it stopped renewing them. A replica alive but cut from the
     * database for longer stores its swept rows again once it reaches it ({@code SocketLeases}).
     */
    @WithDefault("30s")
    @PositiveDuration
    Duration lease();

    /** How often a replica renews the leases of the subscriptions of the sockets it holds (well under lease). */
    @WithDefault("10s")
    @PositiveDuration
    Duration renewal();

    /** Most messages one read-back statement reads for the subscribed sockets of one database. */
    @WithDefault("1000")
    @Min(1)
    int readBackBatch();

    /**
     * Most posted messages waiting to be read back for one database's sockets; past it, notices are dropped (and
     * logged) rather than held without bound.
     */
    @WithDefault("100000")
    @Min(1)
    int maxWaiting();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        SettingsCheck.below(
                problems,
                "pigeon.socket-subscriptions.renewal",
                renewal(),
                "pigeon.socket-subscriptions.lease",
                lease());
        return problems;
    }
}
