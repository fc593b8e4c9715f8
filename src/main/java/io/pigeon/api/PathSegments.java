package io.pigeon.api;

import io.vertx.core.http.HttpServerRequest;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * JAX-RS reads {@code ;...} in a path segment as matrix parameters and drops it from the path parameter, so
 * {@code PUT /v1/queues/a;b} would act on queue {@code a}. No name or id in this API contains {@code ;}:
 * such a path is refused before routing.
 */
public class PathSegments {

    @ServerRequestFilter(preMatching = true)
    public void refuseMatrixParameters(HttpServerRequest request) {
        // Any path: the router also matches spellings that do not start with a version (//v1/..., /x/../v1/...).
        if (request.path().indexOf(';') >= 0) {
            throw new ApiException(
                    400,
                    "Invalid queue identification",
                    "The format of the submitted queue name or project id is not valid. Path segments may not contain "
                            + "';': queue names are 1 to 64 bytes of ASCII letters, digits, underscores and hyphens.");
        }
    }
}
