package io.pigeon.api.v3;

import io.pigeon.api.ApiException;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.read.DispatchRequestReader;
import io.pigeon.api.read.JsonBodyReader;
import io.pigeon.api.read.QueryParamReader;
import io.pigeon.api.view.NextLinks;
import io.pigeon.api.view.PageLink;
import io.pigeon.dispatch.CallMarker;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.dispatch.DispatchStore;
import io.pigeon.rules.Rejection;
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
import java.nio.charset.StandardCharsets;
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
    private final RequestCaller caller;

    public V3QueueResource(DispatchService dispatch, RequestCaller caller) {
        this.dispatch = dispatch;
        this.caller = caller;
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
    public Uni<Response> enqueue(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Sec-Fetch-Mode") String fetchMode,
            @HeaderParam(CallMarker.HEADER) List<String> callMarker,
            @PathParam("merge_key") String mergeKey,
            @PathParam("method") String method,
            @PathParam("service") String service,
            @Context UriInfo uri,
            byte[] body) {
        String project = caller.optionalProject();
        if (origin != null || fetchMode != null) {
            ContentTypes.requireJson(contentType);
        }
        // Read from the query itself: a parameter given empty ("?update=") is malformed, not absent.
        Double ontime = DispatchRequestReader.ontime(uri.getQueryParameters().getFirst("ontime"));
        DispatchService.Update update =
                DispatchRequestReader.update(uri.getQueryParameters().getFirst("update"));
        if (body != null && body.length > dispatch.maxBodySize()) {
            throw Rejection.invalidBody("The body is " + body.length + " bytes; it may not exceed "
                    + dispatch.maxBodySize() + " bytes (pigeon.dispatch.max-body-size).");
        }
        JsonBodyReader.parse(body);
        return dispatch.enqueue(
                        project,
                        mergeKey,
                        method,
                        service,
                        ontime,
                        update,
                        new String(body, StandardCharsets.UTF_8),
                        String.join(",", callMarker))
                .map(enqueued -> Response.status(Response.Status.CREATED)
                        .header("Location", uri.getRequestUri().getRawPath())
                        .entity(V3Views.Enqueued.of(enqueued))
                        .build());
    }

    @GET
    @Path("queue/{merge_key}/{method}/{service}")
    public Uni<V3Views.Pending> pending(
            @PathParam("merge_key") String mergeKey,
            @PathParam("method") String method,
            @PathParam("service") String service,
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @Context UriInfo uri) {
        String project = caller.optionalProject();
        Integer limit = QueryParamReader.integer("limit", limitParam);
        long after = marker == null || marker.isEmpty() ? 0 : DispatchRequestReader.itemId("marker", marker);
        return dispatch.pending(project, mergeKey, method, service, after, limit)
                .map(path -> {
                    List<V3Views.Group> groups =
                            path.page().groups().stream().map(V3Views.Group::of).toList();
                    List<PageLink> links = List.of();
                    if (path.page().more()) {
                        List<DispatchStore.PendingItem> last = path.page()
                                .groups()
                                .get(path.page().groups().size() - 1)
                                .items();
                        links = List.of(NextLinks.after(
                                        uri.getRequestUri().getRawPath(),
                                        String.valueOf(last.get(last.size() - 1).id()))
                                .option("limit", limit)
                                .link());
                    }
                    return new V3Views.Pending(
                            mergeKey,
                            path.address().method(),
                            path.address().target().toString(),
                            DispatchService.mergeable(mergeKey),
                            groups,
                            links);
                });
    }

    @DELETE
    @Path("queue/{merge_key}/{method}/{service}")
    public Uni<Response> deletePending(
            @PathParam("merge_key") String mergeKey,
            @PathParam("method") String method,
            @PathParam("service") String service) {
        String project = caller.optionalProject();
        return dispatch.deletePending(project, mergeKey, method, service)
                .map(deleted -> Response.noContent().build());
    }

    @GET
    @Path("dead-groups")
    public Uni<V3Views.DeadGroups> dead(@QueryParam("marker") String marker, @QueryParam("limit") String limitParam) {
        String project = caller.optionalProject();
        Integer limit = QueryParamReader.integer("limit", limitParam);
        long after = marker == null || marker.isEmpty() ? 0 : DispatchRequestReader.groupId("marker", marker);
        return dispatch.dead(project, after, limit).map(groups -> {
            List<V3Views.DeadGroupView> shown =
                    groups.stream().map(V3Views.DeadGroupView::of).toList();
            List<PageLink> links = shown.isEmpty()
                    ? List.of()
                    : List.of(NextLinks.after(
                                    "/v3/dead-groups",
                                    String.valueOf(shown.get(shown.size() - 1).id()))
                            .option("limit", limit)
                            .link());
            return new V3Views.DeadGroups(shown, links);
        });
    }

    /** Puts a dead group back, to be called at once with fresh attempts. */
    @POST
    @Path("dead-groups/{id}/requeue")
    public Uni<Response> requeue(@PathParam("id") String id, @HeaderParam(CallMarker.HEADER) List<String> callMarker) {
        String project = caller.optionalProject();
        return dispatch.requeue(project, DispatchRequestReader.groupId("group id", id), String.join(",", callMarker))
                .map(requeued -> {
                    if (!requeued) {
                        throw ApiException.notFound("No dead group " + id + " in this project.");
                    }
                    return Response.noContent().build();
                });
    }

    @DELETE
    @Path("dead-groups/{id}")
    public Uni<Response> drop(@PathParam("id") String id) {
        String project = caller.optionalProject();
        return dispatch.dropDead(project, DispatchRequestReader.groupId("group id", id))
                .map(dropped -> Response.noContent().build());
    }
}
