package io.pigeon.api.v3;

import io.pigeon.api.ContentTypes;
import io.pigeon.api.PageLink;
import io.pigeon.api.QueryParams;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.dispatch.DispatchStore;
import io.pigeon.tenancy.Projects;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;

/**
 * The delayed-dispatch queue: {@code /v3/queue/{merge_key}/{method}/{service}} enqueues, shows and drops
 * a group's pending items; {@code /v3/dead-groups} lists, re-queues and drops groups whose calls kept
 * failing. Like v1, a missing {@code X-Project-Id} means the default project.
 */
@Path("/v3")
@Produces(MediaType.APPLICATION_JSON)
public class V3QueueResource {

    private final DispatchService dispatch;

    public V3QueueResource(DispatchService dispatch) {
        this.dispatch = dispatch;
    }

    /**
     * Any JSON body. As the seed's own example ({@code curl -d}) sends it as a form, a form or text type is
     * accepted from programs, but not from a browser: a page may make its visitors' browsers send exactly those
     * types to another origin without asking (no CORS preflight), and browsers mark such requests with
     * {@code Origin} or {@code Sec-Fetch-*} headers, which programs do not send. A JSON type from a browser needs a
     * preflight, which Pigeon does not grant.
     */
    @POST
    @Path("queue/{merge_key}/{method}/{service}")
    @Consumes(MediaType.WILDCARD)
    public Uni<Response> enqueue(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, @HeaderParam("Origin") String origin,
            @HeaderParam("Sec-Fetch-Mode") String fetchMode,
            @PathParam("merge_key") String mergeKey, @PathParam("method") String method,
            @PathParam("service") String service, @Context UriInfo uri, byte[] body) {
        String project = Projects.fromOptionalHeader(projectHeader);
        if (origin != null || fetchMode != null) {
            ContentTypes.requireJson(contentType);
        }
        // Read from the query itself: a parameter given empty ("?update=") is malformed, not absent.
        String ontime = uri.getQueryParameters().getFirst("ontime");
        String update = uri.getQueryParameters().getFirst("update");
        return dispatch.enqueue(project, mergeKey, method, service, ontime, update, body)
                .map(enqueued -> Response.status(Response.Status.CREATED)
                        .header("Location", uri.getRequestUri().getRawPath())
                        .entity(V3Documents.Enqueued.of(enqueued)).build());
    }

    @GET
    @Path("queue/{merge_key}/{method}/{service}")
    public Uni<V3Documents.Pending> pending(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("merge_key") String mergeKey, @PathParam("method") String method,
            @PathParam("service") String service, @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam, @Context UriInfo uri) {
        String project = Projects.fromOptionalHeader(projectHeader);
        Integer limit = QueryParams.integer("limit", limitParam);
        return dispatch.pending(project, mergeKey, method, service, marker, limit).map(path -> {
            List<V3Documents.Group> groups = path.page().groups().stream().map(V3Documents.Group::of).toList();
            List<PageLink> links = List.of();
            if (path.page().more()) {
                List<DispatchStore.PendingItem> last = path.page().groups().get(path.page().groups().size() - 1).items();
                links = List.of(PageLink.next(uri.getRequestUri().getRawPath() + "?marker=" + last.get(last.size() - 1).id()
                        + (limit == null ? "" : "&limit=" + limit)));
            }
            return new V3Documents.Pending(mergeKey, path.address().method(), path.address().target().toString(),
                    DispatchService.mergeable(mergeKey), groups, links);
        });
    }

    @DELETE
    @Path("queue/{merge_key}/{method}/{service}")
    public Uni<Response> deletePending(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("merge_key") String mergeKey, @PathParam("method") String method,
            @PathParam("service") String service) {
        String project = Projects.fromOptionalHeader(projectHeader);
        return dispatch.deletePending(project, mergeKey, method, service).map(deleted -> Response.noContent().build());
    }

    @GET
    @Path("dead-groups")
    public Uni<V3Documents.DeadGroups> dead(@HeaderParam(Projects.HEADER) String projectHeader,
            @QueryParam("marker") String marker, @QueryParam("limit") String limitParam) {
        String project = Projects.fromOptionalHeader(projectHeader);
        Integer limit = QueryParams.integer("limit", limitParam);
        return dispatch.dead(project, marker, limit).map(groups -> {
            List<V3Documents.DeadGroup> shown = groups.stream().map(V3Documents.DeadGroup::of).toList();
            List<PageLink> links = shown.isEmpty() ? List.of()
                    : List.of(PageLink.next("/v3/dead-groups?marker=" + shown.get(shown.size() - 1).id()
                            + (limit == null ? "" : "&limit=" + limit)));
            return new V3Documents.DeadGroups(shown, links);
        });
    }

    /** Puts a dead group back, to be called at once with fresh attempts. */
    @POST
    @Path("dead-groups/{id}/requeue")
    public Uni<Response> requeue(@HeaderParam(Projects.HEADER) String projectHeader, @PathParam("id") String id) {
        String project = Projects.fromOptionalHeader(projectHeader);
        return dispatch.requeue(project, id).map(requeued -> {
            if (!requeued) {
                throw io.pigeon.api.ApiException.notFound("No dead group " + id + " in this project.");
            }
            return Response.noContent().build();
        });
    }

    @DELETE
    @Path("dead-groups/{id}")
    public Uni<Response> drop(@HeaderParam(Projects.HEADER) String projectHeader, @PathParam("id") String id) {
        String project = Projects.fromOptionalHeader(projectHeader);
        return dispatch.dropDead(project, id).map(dropped -> Response.noContent().build());
    }
}
