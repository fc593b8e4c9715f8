package io.pigeon.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Min;
import java.util.ArrayList;
import java.util.List;

/**
 * Every limit Pigeon enforces, named after Zaqar's own options so that operators recognise them.
 * Each one can be set from the environment, e.g. {@code PIGEON_MAX_QUEUES_PER_PAGE=50}.
 */
@ConfigMapping(prefix = "pigeon")
@ValidSettings
public interface PigeonConfig extends CheckedSettings {

    /** Largest {@code limit} accepted when listing queues. */
    @WithDefault("20")
    @Min(1)
    int maxQueuesPerPage();

    /** Largest {@code limit} for listing, claiming and getting messages by id. */
    @WithDefault("20")
    @Min(1)
    int maxMessagesPerPage();

    /** Largest message-post document, in bytes. */
    @WithDefault("262144")
    @Min(1)
    int maxMessagesPostSize();

    /** Largest queue-metadata document, in bytes. */
    @WithDefault("65536")
    @Min(1)
    int maxQueueMetadata();

    /** Largest message TTL, in seconds. */
    @WithDefault("1209600")
    @Min(60)
    int maxMessageTtl();

    /** Largest claim TTL, in seconds. */
    @WithDefault("43200")
    @Min(60)
    int maxClaimTtl();

    /** Largest claim grace, in seconds. */
    @WithDefault("43200")
    @Min(60)
    int maxClaimGrace();

    /** Largest request body of any kind, in bytes; larger declared bodies are refused with 413 unread. */
    @WithDefault("1048576")
    @Min(1)
    long maxRequestBody();

    /** Largest message delay (v2), in seconds. */
    @WithDefault("900")
    @Min(0)
    int maxMessageDelay();

    /** A v2 queue's {@code _default_message_ttl} when it sets none. */
    @WithDefault("3600")
    @Min(60)
    int defaultMessageTtl();

    /** A v2 claim's TTL when the request gives none. */
    @WithDefault("300")
    @Min(60)
    int defaultClaimTtl();

    /** A v2 claim's grace when the request gives none. */
    @WithDefault("60")
    @Min(60)
    int defaultClaimGrace();

    /** A subscription's TTL when the request gives none, in seconds. */
    @WithDefault("3600")
    @Min(60)
    int defaultSubscriptionTtl();

    /**
     * Zaqar's {@code message_delete_with_claim_id}: a v2 bulk delete must name the claims ({@code claim_ids}) of
     * the claimed messages among its {@code ids}, which are deleted only with them. Off by default, as in Zaqar.
     */
    @WithDefault("false")
    boolean messageDeleteWithClaimId();

    /** Largest {@code limit} when listing subscriptions. */
    @WithDefault("20")
    @Min(1)
    int maxSubscriptionsPerPage();

    /** A default no larger than its maximum. */
    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        SettingsCheck.atMost(
                problems, "pigeon.default-message-ttl", defaultMessageTtl(), "pigeon.max-message-ttl", maxMessageTtl());
        SettingsCheck.atMost(
                problems, "pigeon.default-claim-ttl", defaultClaimTtl(), "pigeon.max-claim-ttl", maxClaimTtl());
        SettingsCheck.atMost(
                problems, "pigeon.default-claim-grace", defaultClaimGrace(), "pigeon.max-claim-grace", maxClaimGrace());
        return problems;
    }
}
