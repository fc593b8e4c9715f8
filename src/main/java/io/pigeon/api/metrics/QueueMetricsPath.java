package io.pigeon.api.metrics;

import io.quarkus.vertx.http.runtime.filters.Filters;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Micrometer's Prometheus route answers every path under /q/metrics with the aggregate metrics, ahead of the REST
 * resources; so a request for {@value #PUBLISHED} is sent on, before any route matches it, to the path the resource
 * serves ({@value QueueMetricsResource#SERVED}), with its query. Both paths reach the same resource method, whose caller
 * is decided after routing as every other method's is.
 */
@ApplicationScoped
public class QueueMetricsPath {

    /** The path operators scrape. */
    static final String PUBLISHED = "/q/metrics/queues";

    /** Ahead of every route, Micrometer's included. */
    private static final int PRIORITY = 2000;

    void register(@Observes Filters filters) {
        filters.register(
                context -> {
                    String path = context.normalizedPath();
                    if (PUBLISHED.equals(path) || (PUBLISHED + "/").equals(path)) {
                        String query = context.request().query();
                        context.reroute(QueueMetricsResource.SERVED + (query == null ? "" : "?" + query));
                    } else {
                        context.next();
                    }
                },
                PRIORITY);
    }
}
