package io.pigeon.api.v2;

import io.pigeon.api.ApiDialect;
import io.pigeon.api.ApiException;
import io.pigeon.api.ApiVersion;
import io.pigeon.api.ClientIds;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.TraceHeaders;
import io.pigeon.api.read.IdListReader;
import io.pigeon.api.read.IncludedFields;
import io.pigeon.api.read.MessageIdReader;
import io.pigeon.api.read.MessagePostReader;
import io.pigeon.api.read.QueryParamReader;
import io.pigeon.api.read.WaitReader;
import io.pigeon.api.view.Hrefs;
import io.pigeon.api.view.NextLinks;
import io.pigeon.dispatch.CallMarker;
import io.pigeon.message.Message;
import io.pigeon.message.MessageDeletes;
import io.pigeon.message.MessageIds;
import io.pigeon.message.MessagePops;
import io.pigeon.message.MessageService;
import io.pigeon.message.PostKeys;
import io.pigeon.message.RequestedIds;
import io.pigeon.queue.QueueName;
import io.pigeon.waiting.QueueWaits;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
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
import java.util.stream.Collectors;

/**
 * The v2 and v1.1 message resources: post (creating the queue), list, get, delete, bulk delete and pop. v1.1 posts
 * take no delay and none of the queue's own defaults and limits, and lists no delayed messages, as in Zaqar. v2's
 * topics have the same, except pop: a topic's messages go to its subscriptions, they are not consumed.
 */
@Path("/" + DialectPaths.SEGMENT + "/" + DialectPaths.COLLECTION + "/{queue}/messages")
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2MessageResource {

    private final MessageService messages;
    private final MessageDeletes deletes;
    private final MessagePops pops;
    private final RequestCaller caller;

    private final QueueWaits waits;

    public V2MessageResource(
            MessageService messages, MessageDeletes deletes, MessagePops pops, RequestCaller caller, QueueWaits waits) {
        this.messages = messages;
        this.deletes = deletes;
        this.pops = pops;
        this.caller = caller;
        this.waits = waits;
    }

    @POST
    public Uni<Response> post(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @HeaderParam(ClientIds.HEADER) String clientHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @HeaderParam(CallMarker.HEADER) List<String> callMarker,
            @Context HttpServerRequest request,
            @PathParam("queue") String queueName,
            byte[] body) {
        String project = caller.requiredProject();
        UUID clientId = ClientIds.require(clientHeader);
        ContentTypes.requireJson(contentType);
        // The document is read in the version's shape before the path's collection is checked, as Zaqar does.
        ApiVersion api = DialectPaths.version(version);
        var post = MessagePostReader.readPost(body, api, messages.bounds());
        // The header's raw values: an empty one is a bad key, not an absent one, and a key is never split at commas.
        PostKeys keys = new PostKeys(PostKeys.key(request.headers().getAll(PostKeys.HEADER)), post.dedupIds());
        QueueName queue = DialectPaths.dialect(version, collection).name(queueName);
        boolean queueAttributes = api.has(ApiVersion.Feature.RESERVED_ATTRIBUTES);
        // The request's trace context goes with each message it creates (none without a valid traceparent).
        return messages.postCreatingQueue(
                        project,
                        queue,
                        clientId,
                        TraceHeaders.carriedBy(request, post.messages()),
                        body.length,
                        queueAttributes,
                        String.join(",", callMarker),
                        keys)
                .map(ids -> Response.status(201)
                        .header(HttpHeaders.LOCATION, Hrefs.messages(api, queue) + "?ids=" + MessageIds.join(ids))
                        .entity(new V2Views.Posted(Arrays.stream(ids)
                                .mapToObj(id -> Hrefs.message(api, queue, id))
                                .toList()))
                        .build());
    }

    /** Lists the queue (200 even when empty or absent), or with {@code ids} gets those messages. */
    @GET
    public Uni<V2Views.Messages> list(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @HeaderParam(ClientIds.HEADER) String clientHeader,
            @PathParam("queue") String queueName,
            @QueryParam("ids") List<String> idParams,
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @QueryParam("echo") String echoParam,
            @QueryParam("include_claimed") String includeClaimedParam,
            @QueryParam("include_delayed") String includeDelayedParam,
            @QueryParam("include") List<String> include) {
        String project = caller.requiredProject();
        UUID clientId = ClientIds.require(clientHeader);
        ApiVersion api = DialectPaths.version(version);
        IncludedFields.Shown claimCount = IncludedFields.shown(api, include);
        List<String> wanted = IdListReader.of(idParams);
        if (wanted != null) {
            QueueName queue = DialectPaths.dialect(version, collection).name(queueName);
            return messages.getByIds(project, queue, RequestedIds.of(wanted)).map(found -> {
                if (found.isEmpty()) {
                    throw ApiException.notFound("No messages with IDs: " + pythonList(wanted) + " found in the "
                            + queue.kind() + " " + queue + " for project " + project + ".");
                }
                return new V2Views.Messages(V2Views.items(api, queue, found, claimCount), null);
            });
        }
        Integer limit = QueryParamReader.integer("limit", limitParam);
        boolean echo = QueryParamReader.bool("echo", echoParam, false);
        boolean includeClaimed = QueryParamReader.bool("include_claimed", includeClaimedParam, false);
        // v1.1 has no delayed messages to show: it ignores the parameter, as Zaqar's v1.1 does.
        boolean delayed = api.has(ApiVersion.Feature.DELAYED_MESSAGES);
        boolean includeDelayed = delayed && QueryParamReader.bool("include_delayed", includeDelayedParam, false);
        QueueName queue = DialectPaths.dialect(version, collection).name(queueName);
        long after = MessageIdReader.after(marker);
        return messages.page(project, queue, clientId, after, limit, echo, includeClaimed, includeDelayed)
                .map(found -> {
                    if (found.isEmpty() || found.get().last()) {
                        return new V2Views.Messages(List.of(), List.of());
                    }
                    List<Message> page = found.get().messages();
                    NextLinks next = NextLinks.after(
                                    Hrefs.messages(api, queue),
                                    MessageIds.format(found.get().nextAfter()))
                            .option("limit", limitParam)
                            .option("echo", echoParam == null ? null : echo)
                            .option("include_claimed", includeClaimedParam == null ? null : includeClaimed)
                            .option("include_delayed", includeDelayedParam == null || !delayed ? null : includeDelayed);
                    if (include != null) {
                        // Each include given, as sent: the next page shows the fields this one shows.
                        include.forEach(value -> next.option("include", value));
                    }
                    return new V2Views.Messages(V2Views.items(api, queue, page, claimCount), List.of(next.link()));
                });
    }

    @GET
    @Path("{id}")
    public Uni<V2Views.Item> get(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @PathParam("queue") String queueName,
            @PathParam("id") String id,
            @QueryParam("include") List<String> include) {
        String project = caller.requiredProject();
        ApiDialect dialect = DialectPaths.dialect(version, collection);
        IncludedFields.Shown claimCount = IncludedFields.shown(dialect.version(), include);
        QueueName queue = dialect.name(queueName);
        long rowId = MessageIds.parse(id).orElseThrow(() -> MessageService.messageNotFound(project, queue, id));
        return messages.get(project, queue, rowId)
                .map(found -> V2Views.item(
                        dialect.version(),
                        queue,
                        found.orElseThrow(() -> MessageService.messageNotFound(project, queue, id)),
                        claimCount));
    }

    @DELETE
    @Path("{id}")
    public Uni<Response> delete(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @PathParam("queue") String queueName,
            @PathParam("id") String id,
            @QueryParam("claim_id") String claimId) {
        String project = caller.requiredProject();
        return deletes.deleteNamed(
                        project,
                        DialectPaths.dialect(version, collection).name(queueName),
                        id,
                        MessageIdReader.claimIfNamed(claimId))
                .map(ignored -> Response.noContent().build());
    }

    /** Deletes the messages named by {@code ids}, or pops {@code pop} of the oldest free ones (200 with them). */
    @DELETE
    public Uni<Response> deleteOrPop(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @PathParam("queue") String queueName,
            @QueryParam("ids") List<String> idParams,
            @QueryParam("claim_ids") List<String> claimIdParams,
            @QueryParam("pop") String popParam,
            @QueryParam("include") List<String> include,
            @HeaderParam("Prefer") String prefer,
            @Context HttpServerResponse response) {
        String project = caller.requiredProject();
        List<String> ids = IdListReader.of(idParams);
        // Read only with the option on (v2), as in Zaqar (otherwise the parameter is ignored).
        boolean withClaimIds = deletes.deleteNeedsClaimIds()
                && DialectPaths.version(version).has(ApiVersion.Feature.DELETE_WITH_CLAIM_IDS);
        List<String> claimIds = withClaimIds ? IdListReader.of(claimIdParams) : null;
        if (ids != null && popParam != null) {
            throw ApiException.invalidRequest("pop and id params cannot be present together in the delete request.");
        }
        if (popParam != null && claimIds != null) {
            throw ApiException.invalidRequest("The request should have both \"ids\" and \"claim_ids\" parameter "
                    + "in the request when message_delete_with_claim_id is True.");
        }
        if (popParam != null) {
            Integer count = QueryParamReader.integer("pop", popParam);
            ApiDialect dialect = DialectPaths.dialect(version, collection);
            QueueName queue = dialect.name(queueName);
            if (!dialect.pops()) {
                throw ApiException.invalidRequest("A topic's messages are not popped: they go to its subscriptions.");
            }
            IncludedFields.Shown claimCount = IncludedFields.shown(dialect.version(), include);
            // Pigeon's long polling: with Prefer: wait=N or the queue's _claim_wait_seconds, a pop that finds nothing
            // free waits up to so long for a message before its empty answer.
            Integer preferred = WaitReader.fromPrefer(prefer, waits.maxSeconds());
            return pops.pop(
                            project,
                            caller.grantSignature().orElse(null),
                            queue,
                            count,
                            preferred,
                            () -> !response.closed())
                    .map(found -> {
                        Response.ResponseBuilder answer = Response.ok(new V2Views.Messages(
                                V2Views.poppedItems(
                                        dialect.version(),
                                        queue,
                                        UUID.randomUUID(),
                                        found.orElse(List.of()),
                                        claimCount),
                                null));
                        // A queue that does not exist is not waited for (empty): the preference was not applied.
                        return preferred == null || found.isEmpty()
                                ? answer.build()
                                : answer.header(WaitReader.PREFERENCE_APPLIED, WaitReader.applied(preferred))
                                        .build();
                    });
        }
        if (ids == null) {
            throw ApiException.invalidRequest(
                    "The request should have either \"ids\" or \"pop\" parameter in the request, to be able to delete.");
        }
        if (withClaimIds) {
            if (claimIds == null) {
                throw ApiException.invalidRequest("The request should have both \"ids\" and \"claim_ids\" parameter "
                        + "in the request when message_delete_with_claim_id is True.");
            }
            QueueName queue = DialectPaths.dialect(version, collection).name(queueName);
            return deletes.deleteByIdsWithClaims(
                            project,
                            queue,
                            MessageIdReader.requiredIds(ids),
                            claimIds.stream().map(MessageIdReader::claim).toList())
                    .map(ignored -> Response.noContent().build());
        }
        return deletes.deleteByIds(
                        project,
                        DialectPaths.dialect(version, collection).name(queueName),
                        MessageIdReader.requiredIds(ids))
                .map(ignored -> Response.noContent().build());
    }

    /** The ids as Zaqar's error text shows them (a Python list). */
    private static String pythonList(List<String> ids) {
        return ids.stream().map(id -> "'" + id + "'").collect(Collectors.joining(", ", "[", "]"));
    }
}
