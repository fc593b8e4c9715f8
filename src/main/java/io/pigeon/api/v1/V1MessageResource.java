package io.pigeon.api.v1;

import io.pigeon.api.ApiException;
import io.pigeon.api.ApiVersion;
import io.pigeon.api.ClientIds;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.Rejections;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.TraceHeaders;
import io.pigeon.api.read.IdListReader;
import io.pigeon.api.read.MessageIdReader;
import io.pigeon.api.read.MessagePostReader;
import io.pigeon.api.read.QueryParamReader;
import io.pigeon.api.view.Hrefs;
import io.pigeon.api.view.NextLinks;
import io.pigeon.api.view.PageLink;
import io.pigeon.dispatch.CallMarker;
import io.pigeon.message.Message;
import io.pigeon.message.MessageDeletes;
import io.pigeon.message.MessageIds;
import io.pigeon.message.MessageService;
import io.pigeon.message.PostKeys;
import io.pigeon.message.RequestedIds;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.pigeon.rules.Rejection;
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
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * The v1 message resources: post, list, get (one or by ids) and delete (one or by ids). As in Zaqar v1, only
 * posting and listing need a {@code Client-ID}.
 */
@V1Call
@Path("/v1/queues/{queue}/messages")
@Produces(MediaType.APPLICATION_JSON)
public class V1MessageResource {

    private static final String CONTENT_LOCATION = "Content-Location";

    private final MessageService messages;
    private final MessageDeletes deletes;
    private final RequestCaller caller;

    public V1MessageResource(MessageService messages, MessageDeletes deletes, RequestCaller caller) {
        this.messages = messages;
        this.deletes = deletes;
        this.caller = caller;
    }

    @POST
    public Uni<Response> post(
            @HeaderParam(ClientIds.HEADER) String clientHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @HeaderParam(CallMarker.HEADER) List<String> callMarker,
            @Context HttpServerRequest request,
            @PathParam("queue") String queueName,
            byte[] body) {
        String project = caller.optionalProject();
        UUID clientId = ClientIds.require(clientHeader);
        ContentTypes.requireJson(contentType);
        var post = MessagePostReader.readPost(body, ApiVersion.V1, messages.bounds());
        // The header's raw values: an empty one is a bad key, not an absent one, and a key is never split at commas.
        PostKeys keys = new PostKeys(PostKeys.key(request.headers().getAll(PostKeys.HEADER)), post.dedupIds());
        QueueName queue = QueueName.of(queueName);
        // The request's trace context goes with each message it creates, as on v1.1 and v2 (shown there on request).
        return messages.post(
                        project,
                        queue,
                        clientId,
                        TraceHeaders.carriedBy(request, post.messages()),
                        String.join(",", callMarker),
                        keys)
                .map(stored -> {
                    long[] ids = stored.orElseThrow(() -> QueueService.queueNotFound(project, queue));
                    List<String> hrefs = Arrays.stream(ids)
                            .mapToObj(id -> Hrefs.message(ApiVersion.V1, queue, id))
                            .toList();
                    return Response.status(201)
                            .header(
                                    HttpHeaders.LOCATION,
                                    Hrefs.messages(ApiVersion.V1, queue) + "?ids=" + MessageIds.join(ids))
                            .entity(new V1Views.Posted(hrefs, false))
                            .build();
                });
    }

    /** Lists the queue, or with {@code ids} gets those messages. */
    @GET
    public Uni<Response> list(
            @HeaderParam(ClientIds.HEADER) String clientHeader,
            @PathParam("queue") String queue,
            @QueryParam("ids") List<String> ids,
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @QueryParam("echo") String echoParam,
            @QueryParam("include_claimed") String includeClaimedParam,
            HttpServerRequest request) {
        // As in Zaqar, every answer to a listing names what was asked for, errors included.
        return Uni.createFrom()
                .deferred(() -> listOrGet(
                        clientHeader,
                        queue,
                        IdListReader.of(ids),
                        marker,
                        limitParam,
                        echoParam,
                        includeClaimedParam,
                        request))
                .onFailure(e -> e instanceof ApiException || e instanceof Rejection)
                .recoverWithItem(e -> Response.fromResponse(Rejections.toResponse((RuntimeException) e))
                        .header(CONTENT_LOCATION, request.uri())
                        .build());
    }

    private Uni<Response> listOrGet(
            String clientHeader,
            String queueName,
            List<String> ids,
            String marker,
            String limitParam,
            String echoParam,
            String includeClaimedParam,
            HttpServerRequest request) {
        String project = caller.optionalProject();
        if (ids != null) {
            return messages.getByIds(project, QueueName.of(queueName), RequestedIds.of(ids))
                    .map(found -> found.isEmpty()
                            ? noContentAt(request)
                            : Response.ok(V1Views.items(QueueName.of(queueName), found))
                                    .header(CONTENT_LOCATION, request.uri())
                                    .build());
        }
        UUID clientId = ClientIds.require(clientHeader);
        Integer limit = QueryParamReader.integer("limit", limitParam);
        boolean echo = QueryParamReader.bool("echo", echoParam, false);
        boolean includeClaimed = QueryParamReader.bool("include_claimed", includeClaimedParam, false);
        QueueName queue = QueueName.of(queueName);
        long after = MessageIdReader.after(marker);
        return messages.page(project, queue, clientId, after, limit, echo, includeClaimed, false)
                .map(found -> {
                    // As in Zaqar 15, a queue that does not exist lists as empty. A page that is empty only because its
                    // window
                    // of rows held nothing to show is 200 with its next link, so that clients go on.
                    if (found.isEmpty() || found.get().last()) {
                        return noContentAt(request);
                    }
                    List<Message> page = found.get().messages();
                    String next = NextLinks.after(
                                    Hrefs.messages(ApiVersion.V1, queue),
                                    MessageIds.format(found.get().nextAfter()))
                            .option("limit", limitParam)
                            .option("echo", echoParam == null ? null : echo)
                            .option("include_claimed", includeClaimedParam == null ? null : includeClaimed)
                            .href();
                    return Response.ok(new V1Views.Page(V1Views.items(queue, page), List.of(PageLink.next(next))))
                            .header(CONTENT_LOCATION, request.uri())
                            .build();
                });
    }

    @GET
    @Path("{id}")
    public Uni<Response> get(@PathParam("queue") String queueName, @PathParam("id") String id) {
        String project = caller.optionalProject();
        QueueName queue = QueueName.of(queueName);
        long rowId = MessageIds.parse(id).orElseThrow(() -> MessageService.messageNotFound(project, queue, id));
        return messages.get(project, queue, rowId).map(found -> {
            Message message = found.orElseThrow(() -> MessageService.messageNotFound(project, queue, id));
            return Response.ok(V1Views.item(queue, message))
                    .header(CONTENT_LOCATION, Hrefs.message(ApiVersion.V1, queue, message.id()))
                    .build();
        });
    }

    @DELETE
    @Path("{id}")
    public Uni<Response> delete(
            @PathParam("queue") String queueName, @PathParam("id") String id, @QueryParam("claim_id") String claimId) {
        String project = caller.optionalProject();
        QueueName queue = QueueName.of(queueName);
        return deletes.deleteNamed(project, queue, id, MessageIdReader.claimIfNamed(claimId))
                .map(ignored -> Response.noContent().build());
    }

    @DELETE
    public Uni<Response> deleteByIds(@PathParam("queue") String queueName, @QueryParam("ids") List<String> ids) {
        String project = caller.optionalProject();
        QueueName queue = QueueName.of(queueName);
        return deletes.deleteByIds(project, queue, MessageIdReader.requiredIds(IdListReader.of(ids)))
                .map(ignored -> Response.noContent().build());
    }

    private static Response noContentAt(HttpServerRequest request) {
        return Response.noContent().header(CONTENT_LOCATION, request.uri()).build();
    }
}
