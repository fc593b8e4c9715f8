package io.pigeon.api.v1;

import io.pigeon.api.ApiException;
import io.pigeon.api.Rejections;
import io.pigeon.rules.Rejection;
import io.pigeon.api.ClientIds;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.NextLinks;
import io.pigeon.api.PageLink;
import io.pigeon.api.QueryParams;
import io.pigeon.message.Message;
import io.pigeon.message.MessageIds;
import io.pigeon.message.MessageService;
import io.pigeon.tenancy.Projects;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/** The v1 message resources: post, list, get (one or by ids) and delete (one or by ids). */
@Path("/v1/queues/{queue}/messages")
@Produces(MediaType.APPLICATION_JSON)
public class V1MessageResource {

    private static final String CONTENT_LOCATION = "Content-Location";

    private final MessageService messages;

    public V1MessageResource(MessageService messages) {
        this.messages = messages;
    }

    @POST
    public Uni<Response> post(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(ClientIds.HEADER) String clientHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("queue") String queue,
            byte[] body) {
        String project = Projects.fromOptionalHeader(projectHeader);
        UUID clientId = ClientIds.require(clientHeader);
        ContentTypes.requireJson(contentType);
        var newMessages = messages.toNewMessages(messages.readPostDocument(body), false);
        return messages.post(project, queue, clientId, newMessages).map(ids -> {
            List<String> hrefs = Arrays.stream(ids).mapToObj(id -> V1Messages.messageHref(queue, id)).toList();
            String location = V1Messages.messagesHref(queue) + "?ids=" + MessageIds.join(ids);
            return Response.status(201)
                    .header(HttpHeaders.LOCATION, location)
                    .entity(new V1Messages.Posted(hrefs, false))
                    .build();
        });
    }

    /** Lists the queue, or with {@code ids} gets those messages. */
    @GET
    public Uni<Response> list(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(ClientIds.HEADER) String clientHeader,
            @PathParam("queue") String queue,
            @QueryParam("ids") String ids,
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @QueryParam("echo") String echoParam,
            @QueryParam("include_claimed") String includeClaimedParam,
            HttpServerRequest request) {
        // As in Zaqar, every answer to a listing names what was asked for, errors included.
        return Uni.createFrom().deferred(() -> listOrGet(projectHeader, clientHeader, queue, ids, marker, limitParam,
                        echoParam, includeClaimedParam, request))
                .onFailure(e -> e instanceof ApiException || e instanceof Rejection)
                .recoverWithItem(e -> Response.fromResponse(Rejections.toResponse((RuntimeException) e))
                        .header(CONTENT_LOCATION, request.uri()).build());
    }

    private Uni<Response> listOrGet(String projectHeader, String clientHeader, String queue, String ids, String marker,
            String limitParam, String echoParam, String includeClaimedParam, HttpServerRequest request) {
        String project = Projects.fromOptionalHeader(projectHeader);
        UUID clientId = ClientIds.require(clientHeader);
        if (ids != null) {
            return messages.getByIds(project, queue, splitIds(ids)).map(found -> found.isEmpty()
                    ? noContentAt(request)
                    : Response.ok(V1Messages.items(queue, found)).header(CONTENT_LOCATION, request.uri()).build());
        }
        Integer limit = QueryParams.integer("limit", limitParam);
        boolean echo = QueryParams.bool("echo", echoParam, false);
        boolean includeClaimed = QueryParams.bool("include_claimed", includeClaimedParam, false);
        return messages.list(project, queue, clientId, marker, limit, echo, includeClaimed, false).map(page -> {
            if (page.isEmpty()) {
                return noContentAt(request);
            }
            Message last = page.get(page.size() - 1);
            String next = NextLinks.messages(V1Messages.messagesHref(queue), last.id(), limitParam, NextLinks.flags(
                    "echo", echoParam == null ? null : echo,
                    "include_claimed", includeClaimedParam == null ? null : includeClaimed));
            return Response.ok(new V1Messages.Page(V1Messages.items(queue, page), List.of(PageLink.next(next))))
                    .header(CONTENT_LOCATION, request.uri())
                    .build();
        });
    }

    @GET
    @Path("{id}")
    public Uni<Response> get(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(ClientIds.HEADER) String clientHeader,
            @PathParam("queue") String queue,
            @PathParam("id") String id) {
        String project = Projects.fromOptionalHeader(projectHeader);
        ClientIds.require(clientHeader);
        return messages.get(project, queue, id).map(message -> Response.ok(V1Messages.item(queue, message))
                .header(CONTENT_LOCATION, V1Messages.messageHref(queue, message.id()))
                .build());
    }

    @DELETE
    @Path("{id}")
    public Uni<Response> delete(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(ClientIds.HEADER) String clientHeader,
            @PathParam("queue") String queue,
            @PathParam("id") String id,
            @QueryParam("claim_id") String claimId) {
        String project = Projects.fromOptionalHeader(projectHeader);
        ClientIds.require(clientHeader);
        return messages.delete(project, queue, id, claimId).map(ignored -> Response.noContent().build());
    }

    @DELETE
    public Uni<Response> deleteByIds(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(ClientIds.HEADER) String clientHeader,
            @PathParam("queue") String queue,
            @QueryParam("ids") String ids) {
        String project = Projects.fromOptionalHeader(projectHeader);
        ClientIds.require(clientHeader);
        return messages.deleteByIds(project, queue, ids == null ? null : splitIds(ids))
                .map(ignored -> Response.noContent().build());
    }

    static List<String> splitIds(String ids) {
        return Arrays.stream(ids.split(",")).map(String::trim).filter(id -> !id.isEmpty()).toList();
    }

    private static Response noContentAt(HttpServerRequest request) {
        return Response.noContent().header(CONTENT_LOCATION, request.uri()).build();
    }

}
