package io.pigeon.api.v2;

import io.pigeon.api.ApiDialect;
import io.pigeon.api.ApiVersion;
import jakarta.ws.rs.NotFoundException;

/**
 * The v2 resources also serve API v1.1, and the queue resources also serve v2's topics: the first path segment
 * names the version, the second the collection. This reads them into the {@link ApiDialect} (which holds what
 * differs) and answers as the router would where the dialect has no such resource: 404, as for any path Zaqar does
 * not route.
 */
final class DialectPaths {

    /** The first path segment of the resources serving both. */
    static final String SEGMENT = "{version: v2|v1\\.1}";
    /** The second segment of the resources that queues and topics share (topics are v2 only). */
    static final String COLLECTION = "{collection: queues|topics}";

    private DialectPaths() {}

    /** The version a path names (the route admits only v2 and v1.1). */
    static ApiVersion version(String segment) {
        return ApiVersion.of(segment);
    }

    /** The dialect a path names; topics exist in v2 only (404 in v1.1). */
    static ApiDialect dialect(String version, String collection) {
        return ApiDialect.of(ApiVersion.of(version), collection).orElseThrow(NotFoundException::new);
    }

    /** The dialect of a v2-only path (subscriptions): its queues or its topics. */
    static ApiDialect v2(String collection) {
        return ApiDialect.of(ApiVersion.V2, collection).orElseThrow(NotFoundException::new);
    }

    /** A v2 resource that the version does not have: 404 there. */
    static void require(ApiVersion version, ApiVersion.Feature feature) {
        if (!version.has(feature)) {
            throw new NotFoundException();
        }
    }
}
