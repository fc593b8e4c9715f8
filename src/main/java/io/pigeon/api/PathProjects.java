package io.pigeon.api;

import io.pigeon.tenancy.Projects;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Runs only for the methods marked {@link ProjectInPath} (after routing, before authentication) and records on the
 * request the project their matched {@code {project}} parameter names. Authentication then admits the caller for
 * that project ({@link #requested}); every other method's project is its {@code X-Project-Id} header.
 */
public class PathProjects {

    private static final String MARK = "io.pigeon.api.path-project";
    static final String PARAMETER = "project";

    @ProjectInPath
    @ServerRequestFilter(priority = Priorities.AUTHENTICATION - 100)
    public void mark(ContainerRequestContext context) {
        String project = context.getUriInfo().getPathParameters().getFirst(PARAMETER);
        context.setProperty(MARK, project == null ? "" : project);
    }

    /** The project the request asks to act for: its matched path's, for a method marked so, else its header's. */
    static String requested(ContainerRequestContext context, HttpServerRequest request) {
        return context.getProperty(MARK) instanceof String project ? project : request.getHeader(Projects.HEADER);
    }
}
