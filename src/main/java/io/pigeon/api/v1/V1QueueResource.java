package io.pigeon.api.v1;

import io.pigeon.api.Rejections;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.PageLink;
import io.pigeon.api.QueryParams;
import io.pigeon.api.StatsView;
import io.pigeon.message.MessageService;
import io.pigeon.queue.QueueService;
import io.pigeon.tenancy.Projects;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The v1 queue resources: list, create, check, delete, and metadata. */
@Path("/v1/queues")
@Produces(MediaType.APPLICATION_JSON)
public class V1QueueResource {

    private static final String CONTENT_LOCATION = "Content-Location";

    private final QueueService queues;
    private final MessageService messages;

    public V1QueueResource(QueueService queues, MessageService messages) {
        this.queues = queues;
        this.messages = messages;
    }

    @GET
    public Uni<Response> list(@HeaderParam(Projects.HEADER) String projectHeader,
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @QueryParam("detailed") String detailedParam,
            HttpServerRequest request) {
        String project = Projects.fromOptionalHeader(projectHeader);
        Integer limit = QueryParams.integer("limit", limitParam);
        boolean detailed = QueryParams.bool("detailed", detailedParam, false);
        return queues.list(project, marker, limit, detailed).map(page -> {
            if (page.isEmpty()) {
                return Response.noContent().build();
            }
            List<V1QueueList.Entry> entries = page.stream()
                    .map(q -> new V1QueueList.Entry(q.name(), queueHref(q.name()), detailed ? q.metadataJson() : null))
                    .toList();
            String last = page.get(page.size() - 1).name();
            return Response.ok(new V1QueueList(entries, List.of(PageLink.next(nextHref(last, limitParam, detailed)))))
                    .header(CONTENT_LOCATION, request.uri())
                    .build();
        });
    }

    @PUT
    @Path("{name}")
    public Uni<Response> create(@HeaderParam(Projects.HEADER) String projectHeader, @PathParam("name") String name) {
        String project = Projects.fromOptionalHeader(projectHeader);
        return queues.create(project, name).map(created -> Response.status(created ? 201 : 204)
                .header(HttpHeaders.LOCATION, queueHref(name))
                .build());
    }

    /** Existence check; HEAD is answered by this method too. */
    @GET
    @Path("{name}")
    public Uni<Response> exists(@HeaderParam(Projects.HEADER) String projectHeader, @PathParam("name") String name) {
        String project = Projects.fromOptionalHeader(projectHeader);
        return queues.exists(project, name).map(found -> {
            Response response = found
                    ? Response.noContent().build()
                    : Rejections.toResponse(QueueService.queueNotFound(project, name));
            return Response.fromResponse(response).header(CONTENT_LOCATION, queueHref(name)).build();
        });
    }

    @DELETE
    @Path("{name}")
    public Uni<Response> delete(@HeaderParam(Projects.HEADER) String projectHeader, @PathParam("name") String name) {
        String project = Projects.fromOptionalHeader(projectHeader);
        return queues.delete(project, name).map(ignored -> Response.noContent().build());
    }

    @GET
    @Path("{name}/metadata")
    public Uni<Response> metadata(@HeaderParam(Projects.HEADER) String projectHeader, @PathParam("name") String name) {
        String project = Projects.fromOptionalHeader(projectHeader);
        return queues.metadata(project, name).map(json -> Response.ok(json, MediaType.APPLICATION_JSON_TYPE)
                .header(CONTENT_LOCATION, queueHref(name) + "/metadata")
                .build());
    }

    @PUT
    @Path("{name}/metadata")
    public Uni<Response> replaceMetadata(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("name") String name,
            byte[] body) {
        String project = Projects.fromOptionalHeader(projectHeader);
        ContentTypes.requireJson(contentType);
        return queues.replaceMetadata(project, name, body).map(ignored -> Response.noContent()
                .header(HttpHeaders.LOCATION, queueHref(name) + "/metadata")
                .build());
    }

    /** Message counts by state; oldest and newest only when the queue holds messages. */
    @GET
    @Path("{name}/stats")
    public Uni<Response> stats(@HeaderParam(Projects.HEADER) String projectHeader, @PathParam("name") String name) {
        String project = Projects.fromOptionalHeader(projectHeader);
        return messages.stats(project, name).map(stats -> Response.ok(StatsView.of(stats, id -> V1Messages.messageHref(name, id)))
                .header(CONTENT_LOCATION, queueHref(name) + "/stats")
                .build());
    }

    static String queueHref(String name) {
        return "/v1/queues/" + name;
    }

    /** The next page keeps the caller's limit and detail, and moves the marker past this page. */
    private static String nextHref(String lastName, String limitParam, boolean detailed) {
        StringBuilder href = new StringBuilder("/v1/queues?marker=")
                .append(URLEncoder.encode(lastName, StandardCharsets.UTF_8));
        if (limitParam != null) {
            href.append("&limit=").append(limitParam.trim());
        }
        if (detailed) {
            href.append("&detailed=true");
        }
        return href.toString();
    }
}
