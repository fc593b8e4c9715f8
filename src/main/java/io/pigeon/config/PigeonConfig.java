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

    /** Largest request body of any kind, in bytes; larger declared bodies are refused with 413 unread. */
    @WithDefault("1048576")
    long maxRequestBody();

    /** Largest message delay (v2), in seconds. */
    @WithDefault("900")
    int maxMessageDelay();

    /** A v2 queue's {@code _default_message_ttl} when it sets none. */
    @WithDefault("3600")
    int defaultMessageTtl();

    /** A v2 claim's TTL when the request gives none. */
    @WithDefault("300")
    int defaultClaimTtl();

    /** A v2 claim's grace when the request gives none. */
    @WithDefault("60")
    int defaultClaimGrace();

    /** Who may call, and for which projects. */
    Auth auth();

    interface Auth {
        /** {@code none}: X-Project-Id is trusted (Zaqar's auth-off case); {@code oidc}: a bearer token is required. */
        @WithDefault("none")
        Mode mode();

        /** The token claim that lists the caller's projects: a string (one project) or an array. */
        @WithDefault("projects")
        String projectsClaim();

        /** The token role that may act for any project and read /v2/health. */
        @WithDefault("pigeon-operator")
        String operatorRole();

        enum Mode {
            NONE, OIDC
        }
    }

    /** Pigeon's own vacuum of the message tables. */
    Vacuum vacuum();

    interface Vacuum {
        /** How often, e.g. {@code 10s}; {@code off} leaves it to autovacuum alone. */
        @WithDefault("10s")
        String interval();
    }

    /** The sweeper that deletes expired messages and ends expired claims. */
    Sweeper sweeper();

    interface Sweeper {
        /** How often it runs, e.g. {@code 5s} ({@code off} disables it). Rows are invisible the moment they expire; this bounds storage. */
        @WithDefault("5s")
        String interval();

        /** Rows per statement: short statements, so that the sweeper never holds locks for long. */
        @WithDefault("1000")
        int batchSize();

        /** Statements per run and kind, so that one run stays short even after an outage. */
        @WithDefault("100")
        int maxBatchesPerRun();
    }
}
