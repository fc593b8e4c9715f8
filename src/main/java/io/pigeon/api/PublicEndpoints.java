package io.pigeon.api;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Runs only for the methods marked {@link Public} (after routing, before authentication) and records on the
 * request that the matched method is public. Authentication reads the mark: a request without it is
 * protected, so the default is to deny.
 */
public class PublicEndpoints {

    private static final String MARK = "io.pigeon.api.public-endpoint";

    @Public
    @ServerRequestFilter(priority = Priorities.AUTHENTICATION - 100)
    public void mark(ContainerRequestContext context) {
        context.setProperty(MARK, Boolean.TRUE);
    }

    /** Whether the method this request was routed to is public. */
    public static boolean isPublic(ContainerRequestContext context) {
        return Boolean.TRUE.equals(context.getProperty(MARK));
    }
}
