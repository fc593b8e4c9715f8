package io.pigeon.api.v1;

import io.pigeon.api.ClientIds;
import io.vertx.core.http.HttpServerRequest;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * As in Zaqar v1: a {@code Client-ID} is required only to post and to list messages (the resources check that),
 * but on every v1 call one that is sent, even empty, must be a UUID (400 "Wrong UUID value").
 */
public class V1RequestHeaders {

    @V1Call
    @ServerRequestFilter
    public void checkClientIdIfSent(HttpServerRequest request) {
        ClientIds.checkIfSent(request.getHeader(ClientIds.HEADER));
    }
}
