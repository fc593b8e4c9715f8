package io.pigeon.api.v2;

import io.pigeon.api.ClientIds;
import io.pigeon.tenancy.Projects;
import io.vertx.core.http.HttpServerRequest;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Every v2 call (but the home document, which clients read before they know anything) must name its
 * project ({@code X-Project-Id}) and itself ({@code Client-ID}), as in Zaqar v2. Runs after routing, so an
 * unknown URL is still a 404.
 */
public class V2RequestHeaders {


    @ServerRequestFilter
    public void requireProjectAndClient(HttpServerRequest request) {
        String path = request.path();
        if (!path.startsWith("/v2/") || path.equals("/v2/")) {
            return;
        }
        ClientIds.require(request.getHeader(ClientIds.HEADER));
        Projects.fromRequiredHeader(request.getHeader(Projects.HEADER));
    }
}
