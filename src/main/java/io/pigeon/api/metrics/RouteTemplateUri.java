package io.pigeon.api.metrics;

import io.micrometer.core.instrument.Tags;
import io.quarkus.micrometer.runtime.HttpServerMetricsTagsContributor;
import io.vertx.core.http.HttpMethod;
import jakarta.inject.Singleton;

/**
 * Keeps request paths that no resource method matched out of {@code http_server_requests_seconds{uri=...}}. Quarkus
 * tags a request with its route template when a resource method matched it, and otherwise with the raw path for every
 * error but 404: a {@code POST /v3/projects/acme-corp/queues/payroll-2027/depth} (405), or a {@code ;param} spelling
 * (400), showed the project and the queue on /q/metrics, which is open in OIDC mode, and a hundred such paths used up
 * the bound on uri tags ({@code quarkus.micrometer.binder.http-server.max-uri-tags}) so that real endpoints got no
 * series. Such an answer is tagged {@code NOT_FOUND} (a 404) or {@code UNKNOWN} (any other status, or none) instead:
 * this contributor's {@code uri} replaces Quarkus's. A success or redirection with no template was served by a fixed
 * route (health, metrics, documents) or is tagged {@code REDIRECTION} by Quarkus, and keeps its tag; but OPTIONS,
 * which Quarkus REST answers 200 for any path, is {@code UNKNOWN} without a template.
 */
@Singleton
public class RouteTemplateUri implements HttpServerMetricsTagsContributor {

    /** Where Quarkus REST leaves the template of the resource method that matched the request. */
    static final String TEMPLATE = "UrlPathTemplate";

    private static final Tags NOT_FOUND = Tags.of("uri", "NOT_FOUND");
    private static final Tags UNKNOWN = Tags.of("uri", "UNKNOWN");

    @Override
    public Tags contribute(Context context) {
        if (context.requestContextLocalData(TEMPLATE) != null) {
            return Tags.empty();
        }
        int status = context.response() == null ? 0 : context.response().statusCode();
        // OPTIONS is answered 200 for any path, matched or not (an outside attack filled the uri tags with it).
        boolean options = context.request() != null && context.request().method() == HttpMethod.OPTIONS;
        if (status >= 200 && status < 400 && !options) {
            return Tags.empty();
        }
        return status == 404 ? NOT_FOUND : UNKNOWN;
    }
}
