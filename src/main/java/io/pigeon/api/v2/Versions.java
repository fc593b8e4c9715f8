package io.pigeon.api.v2;

import jakarta.ws.rs.NotFoundException;

/**
 * The v2 resources also serve API v1.1, which is v2 without its later features (Zaqar 15 serves both from
 * nearly the same code): the first path segment says which, and these are the switches between them.
 */
final class Versions {

    /** The first path segment of the resources serving both. */
    static final String SEGMENT = "{version: v2|v1\\.1}";
    static final String V1_1 = "v1.1";

    private Versions() {
    }

    /** The root of the version's hrefs, e.g. {@code /v1.1}. */
    static String root(String version) {
        return "/" + version;
    }

    static boolean isV11(String version) {
        return V1_1.equals(version);
    }

    /** A v2 resource that v1.1 does not have: 404 there, as for any path Zaqar does not route. */
    static void requireV2(String version) {
        if (isV11(version)) {
            throw new NotFoundException();
        }
    }
}
