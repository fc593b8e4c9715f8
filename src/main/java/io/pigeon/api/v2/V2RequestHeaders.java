package io.pigeon.api.v2;

import io.pigeon.api.ClientIds;
import io.pigeon.api.RequestCaller;
import io.vertx.core.http.HttpServerRequest;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Every v2 call (but the home and versions documents, which clients read before they know anything) must
 * name its project ({@code X-Project-Id}, or a token that grants one) and itself ({@code Client-ID}), as in
 * Zaqar v2. Bound to the methods marked {@link V2Call}, so it runs after routing (an unknown URL is still a 404)
 * and after authentication (which resolves the caller).
 */
public class V2RequestHeaders {

    private final RequestCaller caller;

    public V2RequestHeaders(RequestCaller caller) {
        this.caller = caller;
    }

    @V2Call
    @ServerRequestFilter
    public void requireProjectAndClient(HttpServerRequest request) {
        ClientIds.require(request.getHeader(ClientIds.HEADER));
        caller.requiredProject();
    }
}
