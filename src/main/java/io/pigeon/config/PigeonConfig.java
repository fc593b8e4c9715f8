package io.pigeon.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Every limit Pigeon enforces, named after Zaqar's own options so that operators recognise them.
 * Each one can be set from the environment, e.g. {@code PIGEON_MAX_QUEUES_PER_PAGE=50}.
 */
@ConfigMapping(prefix = "pigeon")
public interface PigeonConfig {

    /** Largest {@code limit} accepted when listing queues. */
    @WithDefault("20")
    int maxQueuesPerPage();

    /** Largest {@code limit} for listing, claiming and getting messages by id. */
    @WithDefault("20")
    int maxMessagesPerPage();

    /** Largest message-post document, in bytes. */
    @WithDefault("262144")
    int maxMessagesPostSize();

    /** Largest queue-metadata document, in bytes. */
    @WithDefault("65536")
    int maxQueueMetadata();

    /** Largest message TTL, in seconds. */
    @WithDefault("1209600")
    int maxMessageTtl();

    /** Largest claim TTL, in seconds. */
    @WithDefault("43200")
    int maxClaimTtl();

    /** Largest claim grace, in seconds. */
    @WithDefault("43200")
    int maxClaimGrace();
}
