package io.pigeon.api;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Runs only for the methods marked {@link Public} or {@link ProjectOptional} (after routing, before authentication)
 * and records the mark on the request. Authentication reads it: a request without it is protected and acts for one
 * project, so the default is to deny.
 */
public class PublicEndpoints {

    private static final String MARK = "io.pigeon.api.public-endpoint";
    private static final String PROJECT_OPTIONAL = "io.pigeon.api.project-optional";

    @Public
    @ServerRequestFilter(priority = Priorities.AUTHENTICATION - 100)
    public void mark(ContainerRequestContext context) {
        context.setProperty(MARK, Boolean.TRUE);
    }

    /** Runs only for the methods marked {@link ProjectOptional}. */
    @ProjectOptional
    @ServerRequestFilter(priority = Priorities.AUTHENTICATION - 100)
    public void markProjectOptional(ContainerRequestContext context) {
        context.setProperty(PROJECT_OPTIONAL, Boolean.TRUE);
    }

    /** Whether the method this request was routed to is public. */
    public static boolean isPublic(ContainerRequestContext context) {
        return Boolean.TRUE.equals(context.getProperty(MARK));
    }

    /** Whether the method this request was routed to admits a caller that acts for no one project. */
    public static boolean isProjectOptional(ContainerRequestContext context) {
        return Boolean.TRUE.equals(context.getProperty(PROJECT_OPTIONAL));
    }
}
