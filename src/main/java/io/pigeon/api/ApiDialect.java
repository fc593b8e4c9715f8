package io.pigeon.api;

import io.pigeon.queue.QueueName;
import java.util.List;
import java.util.Optional;

/**
 * The dialect a request speaks: its {@link ApiVersion} and the collection it names, queues or (v2 only) topics.
 * A topic is a queue whose messages go to its subscriptions: the same resources serve both, and what differs is
 * read here, never from a path segment's text.
 */
public enum ApiDialect {
    V1(ApiVersion.V1, "queues"),
    V1_1(ApiVersion.V1_1, "queues"),
    V2_QUEUES(ApiVersion.V2, "queues"),
    V2_TOPICS(ApiVersion.V2, "topics");

    /** Every value, read once: {@code values()} copies its array on each call, and this runs per request. */
    private static final List<ApiDialect> ALL = List.of(values());

    private final ApiVersion version;
    private final String collection;

    ApiDialect(ApiVersion version, String collection) {
        this.version = version;
        this.collection = collection;
    }

    /** The dialect of {@code version}'s {@code collection}; none where the version has no such collection. */
    public static Optional<ApiDialect> of(ApiVersion version, String collection) {
        for (ApiDialect dialect : ALL) {
            if (dialect.version == version && dialect.collection.equals(collection)) {
                return Optional.of(dialect);
            }
        }
        return Optional.empty();
    }

    public ApiVersion version() {
        return version;
    }

    /** The collection's path segment: {@code queues} or {@code topics}. */
    public String collection() {
        return collection;
    }

    public boolean topics() {
        return this == V2_TOPICS;
    }

    /** The queue, or the topic, that a request names: checked as a queue name or as a topic name. */
    public QueueName name(String name) {
        return topics() ? QueueName.topic(name) : QueueName.of(name);
    }

    /** A listing counts its queues on request ({@code with_count}); topics are listed without a count, as in Zaqar. */
    public boolean countsListing() {
        return version.has(ApiVersion.Feature.LISTING_COUNT) && !topics();
    }

    /** Messages are popped (deleted as they are read) from queues; a topic's go to its subscriptions. */
    public boolean pops() {
        return !topics();
    }

    /** A queue's resources may be shared by pre-signed URLs (v2 queues; Zaqar has no topic shares). */
    public boolean shares() {
        return version.has(ApiVersion.Feature.SHARE) && !topics();
    }
}
