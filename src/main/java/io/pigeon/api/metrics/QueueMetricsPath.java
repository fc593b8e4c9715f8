package io.pigeon.api.metrics;

import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpHeaders;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Micrometer's Prometheus route answers every path under /q/metrics with the aggregate metrics, ahead of the REST
 * resources; so a request for {@value #PUBLISHED} is sent on, before any route matches it, to the path the resource
 * serves ({@value #SERVED}), with its query. Both paths reach the same resource method, whose caller is decided after
 * routing as every other method's is; the OpenAPI document lists it under the published path.
 */
@ApplicationScoped
public class QueueMetricsPath {

    /** The path operators scrape. */
    public static final String PUBLISHED = "/q/metrics/queues";

    /** The path the resource is routed at. */
    public static final String SERVED = "/q/queue-metrics";

    /** Ahead of every route, Micrometer's included. */
    private static final int PRIORITY = 2000;

    void register(@Observes Filters filters) {
        filters.register(
                context -> {
                    String path = context.normalizedPath();
                    boolean published = PUBLISHED.equals(path) || (PUBLISHED + "/").equals(path);
                    if (published || SERVED.equals(path) || (SERVED + "/").equals(path)) {
                        // One representation, served whatever the client accepts (Prometheus's Accept prefers
                        // OpenMetrics, Zaqar clients send JSON): the resource names its type only because it writes
                        // a stream, and a stream's type is negotiated.
                        context.request().headers().remove(HttpHeaders.ACCEPT);
                    }
                    if (published) {
                        String query = context.request().query();
                        context.reroute(SERVED + (query == null ? "" : "?" + query));
                    } else {
                        context.next();
                    }
                },
                PRIORITY);
    }
}
