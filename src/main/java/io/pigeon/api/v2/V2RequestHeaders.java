package io.pigeon.api.v2;

import io.pigeon.api.ClientIds;
import io.pigeon.tenancy.Projects;
import io.vertx.core.http.HttpServerRequest;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Every v2 call (but the home and versions documents, which clients read before they know anything) must
 * name its project ({@code X-Project-Id}) and itself ({@code Client-ID}), as in Zaqar v2. Bound to the
 * methods marked {@link V2Call}, so it runs after routing (an unknown URL is still a 404) and after
 * authentication (which may supply the project from the token).
 */
public class V2RequestHeaders {

    @V2Call
    @ServerRequestFilter
    public void requireProjectAndClient(HttpServerRequest request) {
        ClientIds.require(request.getHeader(ClientIds.HEADER));
        Projects.fromRequiredHeader(request.getHeader(Projects.HEADER));
    }
}
