package io.pigeon.api.v2;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.api.ApiException;
import io.pigeon.api.ApiVersion;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.read.JsonBodyReader;
import io.pigeon.api.read.QueryParamReader;
import io.pigeon.api.read.SubscriptionReader;
import io.pigeon.api.view.Hrefs;
import io.pigeon.api.view.NextLinks;
import io.pigeon.api.view.PageLink;
import io.pigeon.message.MessageIds;
import io.pigeon.queue.QueueName;
import io.pigeon.subscription.SubscriptionService;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
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
 * v2 subscriptions, of a queue or of a topic: every message posted to it is delivered to each live http(s)
 * subscriber by the delivery engine of /v3. mailto subscribers are kept but never sent (Pigeon has no mail server);
 * their documents say so in {@code delivery}.
 */
@Path("/v2/" + DialectPaths.COLLECTION + "/{name}/subscriptions")
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2SubscriptionResource {

    /** The name of the confirmation method, which a pre-signed URL opens only by a confirmation grant. */
    static final String CONFIRM = "confirm";

    private final SubscriptionService subscriptions;
    private final RequestCaller caller;

    public V2SubscriptionResource(SubscriptionService subscriptions, RequestCaller caller) {
        this.subscriptions = subscriptions;
        this.caller = caller;
    }

    @POST
    public Uni<Response> create(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("collection") String collection,
            @PathParam("name") String queueName,
            byte[] body) {
        String project = caller.requiredProject();
        QueueName queue = DialectPaths.v2(collection).name(queueName);
        ContentTypes.requireJson(contentType);
        return subscriptions
                .create(project, queue, SubscriptionReader.fields(JsonBodyReader.parse(body)))
                .map(id -> Response.status(Response.Status.CREATED)
                        .header(HttpHeaders.LOCATION, Hrefs.subscription(ApiVersion.V2, queue, id))
                        .entity(new SubscriptionViews.Created(MessageIds.format(id)))
                        .build());
    }

    @GET
    public Uni<SubscriptionViews.Page> list(
            @PathParam("collection") String collection,
            @PathParam("name") String queueName,
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam) {
        String project = caller.requiredProject();
        QueueName queue = DialectPaths.v2(collection).name(queueName);
        Integer limit = QueryParamReader.integer("limit", limitParam);
        long after = marker == null || marker.isEmpty()
                ? 0
                : MessageIds.parse(marker)
                        .orElseThrow(() -> ApiException.invalidParameter(
                                "marker", "The value must be a subscription id from a previous page."));
        return subscriptions.list(project, queue, after, limit).map(page -> {
            List<SubscriptionViews.Document> documents = page.stream()
                    .map(subscription -> SubscriptionViews.Document.of(subscription, queue))
                    .toList();
            List<PageLink> links = documents.isEmpty()
                    ? List.of()
                    : List.of(NextLinks.after(
                                    Hrefs.subscriptions(ApiVersion.V2, queue),
                                    documents.get(documents.size() - 1).id())
                            .option("limit", limit)
                            .link());
            return new SubscriptionViews.Page(documents, links);
        });
    }

    @GET
    @Path("{id}")
    public Uni<SubscriptionViews.Document> get(
            @PathParam("collection") String collection,
            @PathParam("name") String queueName,
            @PathParam("id") String id) {
        String project = caller.requiredProject();
        QueueName queue = DialectPaths.v2(collection).name(queueName);
        long subscriptionId = MessageIds.parse(id).orElseThrow(() -> missing(id));
        return subscriptions.get(project, queue, subscriptionId).map(found -> found.map(
                        subscription -> SubscriptionViews.Document.of(subscription, queue))
                .orElseThrow(() -> missing(id)));
    }

    @PATCH
    @Path("{id}")
    public Uni<Response> update(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("collection") String collection,
            @PathParam("name") String queueName,
            @PathParam("id") String id,
            byte[] body) {
        String project = caller.requiredProject();
        QueueName queue = DialectPaths.v2(collection).name(queueName);
        ContentTypes.requireJson(contentType);
        long subscriptionId = MessageIds.parse(id).orElseThrow(() -> missing(id));
        return subscriptions
                .update(project, queue, subscriptionId, SubscriptionReader.fields(JsonBodyReader.parse(body)))
                .map(updated -> {
                    if (!updated) {
                        throw missing(id);
                    }
                    return Response.noContent()
                            .header(HttpHeaders.LOCATION, Hrefs.subscription(ApiVersion.V2, queue, subscriptionId))
                            .build();
                });
    }

    /**
     * Zaqar's confirmation: {@code {"confirmed": true}} confirms the subscription, {@code false} unconfirms it (with
     * {@code pigeon.notification.require-confirmation} on, only confirmed ones are notified). 204, or 404.
     */
    @PUT
    @Path("{id}/confirm")
    public Uni<Response> confirm(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("collection") String collection,
            @PathParam("name") String queueName,
            @PathParam("id") String id,
            byte[] body,
            @Context UriInfo uri) {
        String project = caller.requiredProject();
        QueueName queue = DialectPaths.v2(collection).name(queueName);
        JsonNode document = null;
        if (body != null && body.length > 0) {
            ContentTypes.requireJson(contentType);
            document = JsonBodyReader.parse(body);
        }
        boolean confirmed = SubscriptionReader.confirmed(document);
        long subscriptionId = MessageIds.parse(id).orElseThrow(() -> missing(id));
        return subscriptions
                .confirm(project, queue, subscriptionId, confirmed, caller.grantExpiry())
                .map(updated -> {
                    if (!updated) {
                        throw missing(id);
                    }
                    return Response.noContent()
                            .header(HttpHeaders.LOCATION, uri.getRequestUri().getRawPath())
                            .build();
                });
    }

    @DELETE
    @Path("{id}")
    public Uni<Response> delete(
            @PathParam("collection") String collection,
            @PathParam("name") String queueName,
            @PathParam("id") String id) {
        String project = caller.requiredProject();
        QueueName queue = DialectPaths.v2(collection).name(queueName);
        Uni<Void> deleted = MessageIds.parse(id)
                .map(subscriptionId -> subscriptions.delete(project, queue, subscriptionId))
                .orElseGet(() -> Uni.createFrom().voidItem());
        return deleted.map(ignored -> Response.noContent().build());
    }

    private static ApiException missing(String id) {
        return ApiException.notFound("Subscription " + id + " does not exist.");
    }
}
