package io.pigeon.api;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The methods each resource path supports, for the {@code Allow} header of a 405 (which the REST layer
 * leaves empty). Every resource added to the API adds its row here; a test checks each row against the
 * real routes.
 */
public final class AllowedMethods {

    private record Route(Pattern path, String allow) {}

    private static final String SEGMENT = "[^/]+";

    private static final List<Route> ROUTES = Stream.of(
                    List.of(
                            route("/v1/", "GET, HEAD, OPTIONS"),
                            route("/v1/health", "GET, HEAD, OPTIONS"),
                            route("/v1/queues", "GET, HEAD, OPTIONS"),
                            route("/v1/queues/" + SEGMENT, "DELETE, GET, HEAD, PUT, OPTIONS"),
                            route("/v1/queues/" + SEGMENT + "/metadata", "GET, HEAD, PUT, OPTIONS"),
                            route("/v1/queues/" + SEGMENT + "/stats", "GET, HEAD, OPTIONS"),
                            route("/v1/queues/" + SEGMENT + "/messages", "DELETE, GET, HEAD, POST, OPTIONS"),
                            route("/v1/queues/" + SEGMENT + "/messages/" + SEGMENT, "DELETE, GET, HEAD, OPTIONS"),
                            route("/v1/queues/" + SEGMENT + "/claims", "POST, OPTIONS"),
                            route("/v1/queues/" + SEGMENT + "/claims/" + SEGMENT, "DELETE, GET, HEAD, PATCH, OPTIONS"),
                            route("/", "GET, HEAD, OPTIONS"),
                            route("/v2/", "GET, HEAD, OPTIONS"),
                            route("/v2/ping", "GET, HEAD, OPTIONS"),
                            route("/v2/health", "GET, OPTIONS"),
                            route("/v2/queues/" + SEGMENT + "/share", "POST, OPTIONS"),
                            route("/v2/queues/" + SEGMENT + "/claims", "POST, OPTIONS"),
                            route("/v2/queues/" + SEGMENT + "/claims/" + SEGMENT, "DELETE, GET, HEAD, PATCH, OPTIONS"),
                            route("/v2/queues/" + SEGMENT + "/redrive", "GET, HEAD, POST, OPTIONS"),
                            route("/v2/queues/" + SEGMENT + "/redrive/" + SEGMENT, "DELETE, GET, HEAD, OPTIONS"),
                            route("/v2/pools", "GET, HEAD, OPTIONS"),
                            route("/v2/pools/" + SEGMENT, "DELETE, GET, HEAD, PATCH, PUT, OPTIONS"),
                            route("/v2/flavors", "GET, HEAD, OPTIONS"),
                            route("/v2/flavors/" + SEGMENT, "DELETE, GET, HEAD, PATCH, PUT, OPTIONS"),
                            route("/v1/pools", "GET, HEAD, OPTIONS"),
                            route("/v1/pools/" + SEGMENT, "DELETE, GET, HEAD, PATCH, PUT, OPTIONS"),
                            route("/v1\\.1/", "GET, HEAD, OPTIONS"),
                            route("/v1\\.1/ping", "GET, HEAD, OPTIONS"),
                            route("/v1\\.1/health", "GET, OPTIONS"),
                            route("/v1\\.1/queues", "GET, HEAD, OPTIONS"),
                            route("/v1\\.1/queues/" + SEGMENT, "DELETE, GET, PUT, OPTIONS"),
                            route("/v1\\.1/queues/" + SEGMENT + "/stats", "GET, HEAD, OPTIONS"),
                            route("/v1\\.1/queues/" + SEGMENT + "/messages", "DELETE, GET, HEAD, POST, OPTIONS"),
                            route("/v1\\.1/queues/" + SEGMENT + "/messages/" + SEGMENT, "DELETE, GET, HEAD, OPTIONS"),
                            route("/v1\\.1/queues/" + SEGMENT + "/claims", "POST, OPTIONS"),
                            route(
                                    "/v1\\.1/queues/" + SEGMENT + "/claims/" + SEGMENT,
                                    "DELETE, GET, HEAD, PATCH, OPTIONS"),
                            route(
                                    "/v3/queue/" + SEGMENT + "/" + SEGMENT + "/" + SEGMENT,
                                    "DELETE, GET, HEAD, POST, OPTIONS"),
                            route("/v3/dead-groups", "GET, HEAD, OPTIONS"),
                            route("/v3/dead-groups/" + SEGMENT, "DELETE, OPTIONS"),
                            route("/v3/dead-groups/" + SEGMENT + "/requeue", "POST, OPTIONS")),
                    queueOrTopic("/v2/queues"),
                    queueOrTopic("/v2/topics"))
            .flatMap(List::stream)
            .toList();

    private AllowedMethods() {}

    /** The Allow header value for {@code path}, or null when no resource lives there. */
    public static String forPath(String path) {
        for (Route route : ROUTES) {
            if (route.path().matcher(path).matches()) {
                return route.allow();
            }
        }
        return null;
    }

    /** What v2 queues and topics both have below {@code collection} (queues also have share and claims). */
    private static List<Route> queueOrTopic(String collection) {
        String one = collection + "/" + SEGMENT;
        return List.of(
                route(collection, "GET, HEAD, OPTIONS"),
                route(one, "DELETE, GET, PATCH, PUT, OPTIONS"),
                route(one + "/stats", "GET, HEAD, OPTIONS"),
                route(one + "/purge", "POST, OPTIONS"),
                route(one + "/messages", "DELETE, GET, HEAD, POST, OPTIONS"),
                route(one + "/messages/" + SEGMENT, "DELETE, GET, HEAD, OPTIONS"),
                route(one + "/subscriptions", "GET, HEAD, POST, OPTIONS"),
                route(one + "/subscriptions/" + SEGMENT, "DELETE, GET, HEAD, PATCH, OPTIONS"),
                route(one + "/subscriptions/" + SEGMENT + "/confirm", "PUT, OPTIONS"));
    }

    private static Route route(String regex, String allow) {
        return new Route(Pattern.compile(regex), allow);
    }
}
