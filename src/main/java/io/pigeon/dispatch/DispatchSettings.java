package io.pigeon.dispatch;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.PositiveDuration;
import io.pigeon.config.SettingsCheck;
import io.pigeon.config.TargetSettings;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The delivery engine of the delayed-dispatch queue (/v3/queue) and of v2 subscriptions.
 *
 * <p>The delivery engine's calls, retries, bounds and targets (io.pigeon.dispatch). Its own mapping, so that the
 * feature that reads these keys owns them; the keys are unchanged ({@code pigeon.dispatch.*}, env {@code
 * PIGEON_DISPATCH_*}).
 */
@ConfigMapping(prefix = "pigeon.dispatch")
@ValidSettings
public interface DispatchSettings extends CheckedSettings {

    /** Whether this replica delivers; every replica may, safely. Enqueueing works either way. */
    @WithDefault("true")
    boolean enabled();

    /** Calls in flight at once, per replica. */
    @WithDefault("64")
    @Min(1)
    int maxConcurrency();

    /** Time to connect to a target. */
    @WithDefault("5s")
    @PositiveDuration
    Duration connectTimeout();

    /** Longest silence from the target once connected (an idle timeout; {@code call-timeout} bounds the whole call). */
    @WithDefault("30s")
    @PositiveDuration
    Duration readTimeout();

    /**
     * Hard deadline of one call, from name resolution to the end of the answer: a target that trickles bytes
     * cannot hold a call slot longer. A group's lease is always this plus a margin.
     */
    @WithDefault("30s")
    @PositiveDuration
    Duration callTimeout();

    /**
     * Hosts and networks a target may be on: host names ({@code receiver}, {@code *.example.com}) and CIDRs
     * ({@code 10.0.0.0/8}, {@code ::1/128}). Unset: any public host. Loopback, private, link-local and other
     * internal addresses are reached only when a CIDR here covers them.
     */
    Optional<List<String>> allowedTargets();

    /** Ports a target may use: numbers, ranges ({@code 8000-8999}) or {@code *}. */
    @WithDefault("80,443,8080,8443")
    List<String> allowedPorts();

    /** Largest body of one call, in bytes: a group's items beyond it go in its next call (one item always goes). */
    @WithDefault("1048576")
    @Min(1)
    int maxCallBytes();

    /** Calls in flight at once for one project, per replica, so that one project's slow targets cannot take every slot. */
    @WithDefault("16")
    @Min(1)
    int maxConcurrencyPerProject();

    /**
     * Calls started per second to one target address (the IP address connected to), per replica, whatever the
     * projects that ask for them: calls past it wait (their groups are put back, due when the address has room),
     * none is dropped and none costs an attempt. The cluster's bound is this times the replicas that deliver.
     */
    @WithDefault("50")
    @Min(1)
    @Max(1_000_000_000)
    int maxCallsPerHostPerSecond();

    /**
     * The secret that keys the marker header every outbound call carries ({@code X-Pigeon-Marker}), by which
     * Pigeon recognises its own calls when something forwards them back to it: a post carrying it is stored
     * and notifies nobody, a /v3 push or requeue carrying it is refused. Unset: a random value the first
     * migration stored in the database, shared by every replica of the deployment. Set it to share the marker
     * between deployments on different databases.
     */
    Optional<String> callMarkerSecret();

    /** How long a dead group is kept (for /v3/dead-groups) before the sweeper deletes it. */
    @WithDefault("7d")
    @PositiveDuration
    Duration deadRetention();

    /** Calls a group gets before it is moved to the dead state (the first call included). */
    @WithDefault("10")
    @Min(1)
    int maxAttempts();

    /** Age after which a failing group is moved to the dead state, whatever its attempts. */
    @WithDefault("1d")
    @PositiveDuration
    Duration maxAge();

    /** Delay before the first retry; each further retry doubles it, up to {@code retry-max}. */
    @WithDefault("1s")
    @PositiveDuration
    Duration retryInitial();

    /** Longest delay between two retries. */
    @WithDefault("5m")
    @PositiveDuration
    Duration retryMax();

    /** Most items one call delivers; a larger group is delivered in several calls, in order. */
    @WithDefault("100")
    @Min(1)
    int maxItemsPerCall();

    /** How far ahead of now a push's {@code ontime} may be (by the database clock). */
    @WithDefault("30d")
    @PositiveDuration
    Duration ontimeHorizon();

    /**
     * Age (since its first push) after which a pending group is moved to the dead state by the sweeper, whatever
     * its fire time: nothing stays pending for ever. Keep it above {@code ontime-horizon}.
     */
    @WithDefault("60d")
    @PositiveDuration
    Duration maxPendingAge();

    /** Largest enqueued body, in bytes. */
    @WithDefault("262144")
    @Min(1)
    int maxBodySize();

    /**
     * Longest sleep of an idle dispatcher. Pushes wake it at once (in-process and by LISTEN/NOTIFY from
     * other replicas); this bounds how late a group can be if a notification is ever lost.
     */
    @WithDefault("10s")
    @PositiveDuration
    Duration maxSleep();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        SettingsCheck.atMost(
                problems, "pigeon.dispatch.retry-initial", retryInitial(), "pigeon.dispatch.retry-max", retryMax());
        SettingsCheck.below(
                problems,
                "pigeon.dispatch.ontime-horizon",
                ontimeHorizon(),
                "pigeon.dispatch.max-pending-age",
                maxPendingAge());
        for (String entry : allowedTargets().orElse(List.of())) {
            String trimmed = entry.trim().toLowerCase(Locale.ROOT);
            if (trimmed.contains("/")) {
                SettingsCheck.guarded(problems, () -> TargetSettings.cidr(trimmed));
            }
        }
        for (String entry : allowedPorts()) {
            SettingsCheck.guarded(problems, () -> TargetSettings.ports(entry.trim()));
        }
        return problems;
    }
}
