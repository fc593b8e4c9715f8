package io.pigeon.api;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * An API version as a value: its path segment, the root of its hrefs, and the features it has. Zaqar 15 serves
 * v1.1 and v2 from nearly the same code, v1.1 being v2 without its later features; what differs between them is
 * read here ({@link #has}), never from the version's name. v1 has resources of its own, whose documents differ
 * in shape ({@link #wrapsPosts}, {@link #requiresTtl}, {@link #requiresClaimTerms}). Nothing here knows the
 * transport: a path segment is matched by the resources, a WebSocket frame would name its version otherwise.
 */
public enum ApiVersion {
    V1("v1", EnumSet.noneOf(Feature.class)),
    V1_1("v1.1", EnumSet.noneOf(Feature.class)),
    V2("v2", EnumSet.allOf(Feature.class));

    /** Every value, read once: {@code values()} copies its array on each call, and this runs per request. */
    private static final List<ApiVersion> ALL = List.of(values());

    /** What v2 has and v1.1 has not (Zaqar's v1.1 ignores the parameters, or has no such resource). */
    public enum Feature {
        /** Topics beside queues ({@code /v2/topics}). */
        TOPICS,
        /** A queue's metadata patched with a JSON patch (v1.1: 405). */
        METADATA_PATCH,
        /** A queue's messages and subscriptions purged. */
        PURGE,
        /** Pre-signed URLs to a queue's resources. */
        SHARE,
        /** A queue listing filtered by {@code name}. */
        NAME_FILTER,
        /** A queue listing counted ({@code with_count}). */
        LISTING_COUNT,
        /** Delayed messages: a post's {@code delay}, a listing's {@code include_delayed}. */
        DELAYED_MESSAGES,
        /** A bulk delete proving its claims ({@code claim_ids}, with {@code message_delete_with_claim_id}). */
        DELETE_WITH_CLAIM_IDS,
        /**
         * The queue's reserved attributes ({@code _max_messages_post_size}, {@code _default_message_ttl}, ...): they
         * bound and complete posts, and a queue's metadata is shown with their defaults. v1.1 has the metadata as
         * stored, and its posts take the global defaults and bounds.
         */
        RESERVED_ATTRIBUTES
    }

    private final String segment;
    private final Set<Feature> features;

    ApiVersion(String segment, Set<Feature> features) {
        this.segment = segment;
        this.features = features;
    }

    /** The version a path segment names ({@code v1}, {@code v1.1}, {@code v2}). */
    public static ApiVersion of(String segment) {
        for (ApiVersion version : ALL) {
            if (version.segment.equals(segment)) {
                return version;
            }
        }
        throw new IllegalArgumentException("No API version " + segment);
    }

    /** The first path segment, e.g. {@code v1.1}. */
    public String segment() {
        return segment;
    }

    /** The root of the version's hrefs, e.g. {@code /v1.1}. */
    public String root() {
        return "/" + segment;
    }

    public boolean has(Feature feature) {
        return features.contains(feature);
    }

    /** A post is {@code {"messages": [...]}}; v1's is the bare array. */
    public boolean wrapsPosts() {
        return this != V1;
    }

    /** Each posted message names its TTL (v1); later, a message without one takes the default. */
    public boolean requiresTtl() {
        return this == V1;
    }

    /** A claim names both ttl and grace, and a renewal its ttl (v1); later, the defaults fill what is not named. */
    public boolean requiresClaimTerms() {
        return this == V1;
    }
}
