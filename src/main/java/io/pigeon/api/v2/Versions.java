package io.pigeon.api.v2;

import io.pigeon.queue.QueueName;
import jakarta.ws.rs.NotFoundException;

/**
 * The v2 resources also serve API v1.1, which is v2 without its later features (Zaqar 15 serves both from
 * nearly the same code): the first path segment says which, and these are the switches between them. The queue
 * resources also serve v2's topics, named by the second segment.
 */
final class Versions {

    /** The first path segment of the resources serving both. */
    static final String SEGMENT = "{version: v2|v1\\.1}";
    static final String V1_1 = "v1.1";
    static final String V2 = "v2";
    /** The second segment of the resources that queues and topics share (topics are v2 only). */
    static final String COLLECTION = "{collection: queues|topics}";
    static final String TOPICS = "topics";

    private Versions() {
    }

    /** The root of the version's hrefs, e.g. {@code /v1.1}. */
    static String root(String version) {
        return "/" + version;
    }

    static boolean isV11(String version) {
        return V1_1.equals(version);
    }

    static boolean isTopics(String collection) {
        return TOPICS.equals(collection);
    }

    /** The queue, or the topic, that a path names; topics exist in v2 only (404 in v1.1). */
    static QueueName named(String version, String collection, String name) {
        if (isTopics(collection)) {
            requireV2(version);
            return QueueName.topic(name);
        }
        return QueueName.of(name);
    }

    /** A resource of the shared paths that queues have and topics do not (share): 404 for a topic. */
    static void requireQueue(String collection) {
        if (isTopics(collection)) {
            throw new NotFoundException();
        }
    }

    /** A v2 resource that v1.1 does not have: 404 there, as for any path Zaqar does not route. */
    static void requireV2(String version) {
        if (isV11(version)) {
            throw new NotFoundException();
        }
    }
}
