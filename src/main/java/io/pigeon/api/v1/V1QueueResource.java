package io.pigeon.api.v1;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.ApiDialect;
import io.pigeon.api.ApiVersion;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.Rejections;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.read.QueryParamReader;
import io.pigeon.api.read.QueueMetadataReader;
import io.pigeon.api.view.Hrefs;
import io.pigeon.api.view.NextLinks;
import io.pigeon.api.view.PageLink;
import io.pigeon.api.view.StatsView;
import io.pigeon.config.PigeonConfig;
import io.pigeon.message.MessageService;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
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
import java.util.List;

/** The v1 queue resources: list, create, check, delete, and metadata. */
@V1Call
@Path("/v1/queues")
@Produces(MediaType.APPLICATION_JSON)
public class V1QueueResource {

    private static final String CONTENT_LOCATION = "Content-Location";

    private final QueueService queues;
    private final MessageService messages;
    private final RequestCaller caller;
    private final PigeonConfig config;

    public V1QueueResource(QueueService queues, MessageService messages, RequestCaller caller, PigeonConfig config) {
        this.queues = queues;
        this.messages = messages;
        this.caller = caller;
        this.config = config;
    }

    @GET
    public Uni<Response> list(
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @QueryParam("detailed") String detailedParam,
            HttpServerRequest request) {
        String project = caller.optionalProject();
        Integer limit = QueryParamReader.integer("limit", limitParam);
        boolean detailed = QueryParamReader.bool("detailed", detailedParam, false);
        return queues.list(project, false, marker, limit, detailed, null).map(page -> {
            if (page.isEmpty()) {
                return Response.noContent().build();
            }
            List<V1QueueList.Entry> entries = page.stream()
                    .map(q -> new V1QueueList.Entry(
                            q.name(),
                            Hrefs.collection(ApiDialect.V1) + "/" + q.name(),
                            detailed ? q.metadataJson() : null))
                    .toList();
            String next = NextLinks.after(
                            Hrefs.collection(ApiDialect.V1),
                            page.get(page.size() - 1).name())
                    .option("limit", limitParam)
                    .flag("detailed", detailed)
                    .href();
            return Response.ok(new V1QueueList(entries, List.of(PageLink.next(next))))
                    .header(CONTENT_LOCATION, request.uri())
                    .build();
        });
    }

    @PUT
    @Path("{name}")
    public Uni<Response> create(@PathParam("name") String name) {
        String project = caller.optionalProject();
        QueueName queue = QueueName.of(name);
        return queues.create(project, queue).map(created -> Response.status(created ? 201 : 204)
                .header(HttpHeaders.LOCATION, Hrefs.queue(ApiVersion.V1, queue))
                .build());
    }

    /** Existence check; HEAD is answered by this method too. */
    @GET
    @Path("{name}")
    public Uni<Response> exists(@PathParam("name") String name) {
        String project = caller.optionalProject();
        QueueName queue = QueueName.of(name);
        return queues.exists(project, queue).map(found -> {
            Response response = found
                    ? Response.noContent().build()
                    : Rejections.toResponse(QueueService.queueNotFound(project, queue));
            return Response.fromResponse(response)
                    .header(CONTENT_LOCATION, Hrefs.queue(ApiVersion.V1, queue))
                    .build();
        });
    }

    @DELETE
    @Path("{name}")
    public Uni<Response> delete(@PathParam("name") String name) {
        String project = caller.optionalProject();
        return queues.delete(project, QueueName.of(name))
                .map(ignored -> Response.noContent().build());
    }

    @GET
    @Path("{name}/metadata")
    public Uni<Response> metadata(@PathParam("name") String name) {
        String project = caller.optionalProject();
        QueueName queue = QueueName.of(name);
        return queues.metadata(project, queue).map(found -> Response.ok(
                        found.orElseThrow(() -> QueueService.queueNotFound(project, queue)),
                        MediaType.APPLICATION_JSON_TYPE)
                .header(CONTENT_LOCATION, Hrefs.queue(ApiVersion.V1, queue) + "/metadata")
                .build());
    }

    @PUT
    @Path("{name}/metadata")
    public Uni<Response> replaceMetadata(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, @PathParam("name") String name, byte[] body) {
        String project = caller.optionalProject();
        ContentTypes.requireJson(contentType);
        QueueName queue = QueueName.of(name);
        ObjectNode metadata = QueueMetadataReader.metadata(body, config.maxQueueMetadata());
        return queues.replaceMetadata(project, queue, metadata).map(replaced -> {
            if (!replaced) {
                throw QueueService.queueNotFound(project, queue);
            }
            return Response.noContent()
                    .header(HttpHeaders.LOCATION, Hrefs.queue(ApiVersion.V1, queue) + "/metadata")
                    .build();
        });
    }

    /** Message counts by state; oldest and newest only when the queue holds messages. */
    @GET
    @Path("{name}/stats")
    public Uni<Response> stats(@PathParam("name") String name) {
        String project = caller.optionalProject();
        QueueName queue = QueueName.of(name);
        return messages.stats(project, queue).map(found -> Response.ok(StatsView.of(
                        found.orElseThrow(() -> QueueService.queueNotFound(project, queue)),
                        id -> Hrefs.message(ApiVersion.V1, queue, id)))
                .header(CONTENT_LOCATION, Hrefs.queue(ApiVersion.V1, queue) + "/stats")
                .build());
    }
}
