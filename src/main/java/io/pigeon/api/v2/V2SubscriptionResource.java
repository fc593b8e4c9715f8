package io.pigeon.api.v2;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.pigeon.api.ApiException;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.JsonBodies;
import io.pigeon.api.Hrefs;
import io.pigeon.api.NextLinks;
import io.pigeon.api.RequestCaller;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.PageLink;
import io.pigeon.api.QueryParams;
import io.pigeon.message.MessageIds;
import io.pigeon.subscription.Subscription;
import io.pigeon.subscription.SubscriptionService;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;

/**
 * v2 subscriptions, of a queue or of a topic: every message posted to it is delivered to each live http(s)
 * subscriber by the delivery engine of /v3. mailto subscribers are kept but never sent (Pigeon has no mail server);
 * their documents say so in {@code delivery}.
 */
@Path("/v2/" + Versions.COLLECTION + "/{name}/subscriptions")
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2SubscriptionResource {

    static final String WEBHOOK = "webhook";
    /** The name of the confirmation method, which a pre-signed URL opens only by a confirmation grant. */
    static final String CONFIRM = "confirm";
    static final String NOT_DELIVERED = "not delivered: Pigeon has no mail server";

    private final SubscriptionService subscriptions;
    private final RequestCaller caller;

    public V2SubscriptionResource(SubscriptionService subscriptions, RequestCaller caller) {
        this.subscriptions = subscriptions;
        this.caller = caller;
    }

    @RegisterForReflection
    record Created(String subscription_id) {
    }

    /** Zaqar's subscription document ({@code confirmed} as PUT .../confirm set it); {@code delivery} is Pigeon's. */
    @RegisterForReflection
    record Document(String id, String subscriber, String source, int ttl, @JsonRawValue String options, long age,
            boolean confirmed, String delivery) {
        /** The document of {@code queue}'s subscription: its source named as the client names it. */
        static Document of(Subscription subscription, QueueName queue) {
            return new Document(MessageIds.format(subscription.id()), subscription.subscriber(), queue.name(),
                    subscription.ttl(), subscription.optionsJson(), subscription.age(), subscription.confirmed(),
                    subscription.delivered() ? WEBHOOK : NOT_DELIVERED);
        }
    }

    @RegisterForReflection
    record Page(List<Document> subscriptions, List<PageLink> links) {
    }

    @POST
    public Uni<Response> create(@HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("collection") String collection, @PathParam("name") String queueName, byte[] body) {
        String project = caller.requiredProject();
        QueueName queue = Versions.named(Versions.V2, collection, queueName);
        ContentTypes.requireJson(contentType);
        return subscriptions.create(project, queue, fields(JsonBodies.parse(body)))
                .map(id -> Response.status(Response.Status.CREATED)
                        .header(HttpHeaders.LOCATION, Hrefs.subscription(Hrefs.V2, queue, id))
                        .entity(new Created(MessageIds.format(id))).build());
    }

    @GET
    public Uni<Page> list(@PathParam("collection") String collection, @PathParam("name") String queueName,
            @QueryParam("marker") String marker, @QueryParam("limit") String limitParam) {
        String project = caller.requiredProject();
        QueueName queue = Versions.named(Versions.V2, collection, queueName);
        Integer limit = QueryParams.integer("limit", limitParam);
        long after = marker == null || marker.isEmpty() ? 0
                : MessageIds.parse(marker).orElseThrow(() -> ApiException.invalidParameter("marker",
                        "The value must be a subscription id from a previous page."));
        return subscriptions.list(project, queue, after, limit).map(page -> {
            List<Document> documents = page.stream().map(subscription -> Document.of(subscription, queue)).toList();
            List<PageLink> links = documents.isEmpty() ? List.of()
                    : List.of(NextLinks.after(Hrefs.subscriptions(Hrefs.V2, queue),
                            documents.get(documents.size() - 1).id()).option("limit", limit).link());
            return new Page(documents, links);
        });
    }

    @GET
    @Path("{id}")
    public Uni<Document> get(@PathParam("collection") String collection, @PathParam("name") String queueName,
            @PathParam("id") String id) {
        String project = caller.requiredProject();
        QueueName queue = Versions.named(Versions.V2, collection, queueName);
        long subscriptionId = MessageIds.parse(id).orElseThrow(() -> missing(id));
        return subscriptions.get(project, queue, subscriptionId)
                .map(found -> found.map(subscription -> Document.of(subscription, queue)).orElseThrow(() -> missing(id)));
    }

    @PATCH
    @Path("{id}")
    public Uni<Response> update(@HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("collection") String collection, @PathParam("name") String queueName, @PathParam("id") String id, byte[] body) {
        String project = caller.requiredProject();
        QueueName queue = Versions.named(Versions.V2, collection, queueName);
        ContentTypes.requireJson(contentType);
        long subscriptionId = MessageIds.parse(id).orElseThrow(() -> missing(id));
        return subscriptions.update(project, queue, subscriptionId, fields(JsonBodies.parse(body)))
                .map(updated -> {
                    if (!updated) {
                        throw missing(id);
                    }
                    return Response.noContent()
                            .header(HttpHeaders.LOCATION, Hrefs.subscription(Hrefs.V2, queue, subscriptionId)).build();
                });
    }

    /**
     * Zaqar's confirmation: {@code {"confirmed": true}} confirms the subscription, {@code false} unconfirms it (with
     * {@code pigeon.notification.require-confirmation} on, only confirmed ones are notified). 204, or 404.
     */
    @PUT
    @Path("{id}/confirm")
    public Uni<Response> confirm(@HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("collection") String collection, @PathParam("name") String queueName, @PathParam("id") String id, byte[] body,
            @Context UriInfo uri) {
        String project = caller.requiredProject();
        QueueName queue = Versions.named(Versions.V2, collection, queueName);
        JsonNode confirmed = null;
        if (body != null && body.length > 0) {
            ContentTypes.requireJson(contentType);
            JsonNode document = JsonBodies.parse(body);
            confirmed = document.isObject() ? document.get("confirmed") : null;
        }
        if (confirmed == null || !confirmed.isBoolean()) {
            throw Rejection.invalidRequest("The 'confirmed' should be boolean.");
        }
        long subscriptionId = MessageIds.parse(id).orElseThrow(() -> missing(id));
        return subscriptions.confirm(project, queue, subscriptionId, confirmed.booleanValue(), caller.grantExpiry())
                .map(updated -> {
            if (!updated) {
                throw missing(id);
            }
            return Response.noContent().header(HttpHeaders.LOCATION, uri.getRequestUri().getRawPath()).build();
        });
    }

    @DELETE
    @Path("{id}")
    public Uni<Response> delete(@PathParam("collection") String collection, @PathParam("name") String queueName, @PathParam("id") String id) {
        String project = caller.requiredProject();
        QueueName queue = Versions.named(Versions.V2, collection, queueName);
        Uni<Void> deleted = MessageIds.parse(id).map(subscriptionId -> subscriptions.delete(project, queue, subscriptionId))
                .orElseGet(() -> Uni.createFrom().voidItem());
        return deleted.map(ignored -> Response.noContent().build());
    }

    /**
     * The fields of a subscription document, their JSON types checked (Zaqar's texts); what their values may be
     * is the subscription service's rule.
     */
    private static SubscriptionService.Fields fields(JsonNode document) {
        if (!document.isObject()) {
            throw Rejection.invalidRequest("Subscriptions must be a dict.");
        }
        if (document.isEmpty()) {
            throw Rejection.invalidRequest("No subscription to create.");
        }
        JsonNode subscriber = document.get("subscriber");
        if (subscriber != null && !subscriber.isTextual()) {
            throw Rejection.invalidRequest("subscriber must be a string: an http, https or mailto URI.");
        }
        JsonNode ttl = document.get("ttl");
        if (ttl != null && (!ttl.isIntegralNumber() || !ttl.canConvertToInt())) {
            throw Rejection.invalidRequest("TTL must be an integer from " + SubscriptionService.MIN_SUBSCRIPTION_TTL
                    + " to " + Integer.MAX_VALUE + ".");
        }
        JsonNode options = document.get("options");
        if (options != null && !options.isObject()) {
            throw Rejection.invalidRequest("Options must be a dict.");
        }
        return new SubscriptionService.Fields(subscriber == null ? null : subscriber.asText(),
                ttl == null ? null : ttl.intValue(), (ObjectNode) options);
    }

    private static ApiException missing(String id) {
        return ApiException.notFound("Subscription " + id + " does not exist.");
    }
}
