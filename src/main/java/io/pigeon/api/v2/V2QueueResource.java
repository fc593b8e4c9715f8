package io.pigeon.api.v2;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.api.ApiException;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.JsonBodies;
import io.pigeon.api.PageLink;
import io.pigeon.api.QueryParams;
import io.pigeon.api.StatsView;
import io.pigeon.message.MessageService;
import io.pigeon.queue.Queue;
import io.pigeon.queue.QueueNames;
import io.pigeon.queue.QueueService;
import io.pigeon.queue.ReservedAttributes;
import io.pigeon.subscription.SubscriptionService;
import io.pigeon.tenancy.Projects;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
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
import java.util.Set;

/** The v2 queue resources: list, create, metadata (read and JSON-patch), delete, stats and purge. */
@Path("/v2/queues")
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2QueueResource {

    static final String JSON_PATCH = "application/openstack-messaging-v2.0-json-patch";
    private static final Set<String> PURGEABLE = Set.of("messages", "subscriptions");

    private final QueueService queues;
    private final MessageService messages;
    private final ReservedAttributes reserved;
    private final SubscriptionService subscriptions;

    public V2QueueResource(QueueService queues, MessageService messages, ReservedAttributes reserved,
            SubscriptionService subscriptions) {
        this.queues = queues;
        this.messages = messages;
        this.reserved = reserved;
        this.subscriptions = subscriptions;
    }

    @GET
    public Uni<V2Messages.QueueList> list(@HeaderParam(Projects.HEADER) String projectHeader,
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @QueryParam("detailed") String detailedParam,
            @QueryParam("with_count") String withCountParam,
            @QueryParam("name") String name) {
        String project = Projects.fromRequiredHeader(projectHeader);
        Integer limit = QueryParams.integer("limit", limitParam);
        boolean detailed = QueryParams.bool("detailed", detailedParam, false);
        boolean withCount = QueryParams.bool("with_count", withCountParam, false);
        String nameFilter = name == null || name.isEmpty() ? null : name;
        Uni<Long> count = withCount ? queues.count(project, nameFilter) : Uni.createFrom().nullItem();
        return queues.list(project, marker, limit, detailed, nameFilter).flatMap(page -> count.map(total -> {
            List<V2Messages.QueueEntry> entries = page.stream().map(q -> new V2Messages.QueueEntry(q.name(),
                    V2Messages.queueHref(q.name()),
                    detailed ? reserved.withDefaults(JsonBodies.readStoredObject(q.metadataJson())) : null)).toList();
            List<PageLink> links = page.isEmpty() ? List.of()
                    : List.of(PageLink.next(nextHref(page.get(page.size() - 1), limitParam, detailed, withCount, nameFilter)));
            return new V2Messages.QueueList(entries, links, total);
        }));
    }

    /** Creates the queue, with the metadata document if one is sent: 201, or 204 when it already exists. */
    @PUT
    @Path("{name}")
    public Uni<Response> create(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("name") String name,
            byte[] body) {
        String project = Projects.fromRequiredHeader(projectHeader);
        if (body != null && body.length > 0) {
            ContentTypes.requireJson(contentType);
        }
        return queues.create(project, name, body).map(created -> Response.status(created ? 201 : 204)
                .header(HttpHeaders.LOCATION, V2Messages.queueHref(name))
                .build());
    }

    /** The queue's metadata with its reserved attributes (defaults where unset), as Zaqar v2 answers it. */
    @GET
    @Path("{name}")
    public Uni<JsonNode> get(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("name") String name) {
        return queues.metadataWithDefaults(Projects.fromRequiredHeader(projectHeader), name).map(metadata -> metadata);
    }

    /** Zaqar v2 answers HEAD on a queue with 405. */
    @HEAD
    @Path("{name}")
    public Response head() {
        throw new NotAllowedException("GET");
    }

    @PATCH
    @Path("{name}")
    public Uni<JsonNode> patch(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("name") String name,
            byte[] body) {
        String project = Projects.fromRequiredHeader(projectHeader);
        if (contentType == null || !contentType.split(";", 2)[0].trim().equalsIgnoreCase(JSON_PATCH)) {
            throw new ApiException(415, "Accepted media type for PATCH: {'Accept-Patch': '" + JSON_PATCH + "'}.",
                    "A queue is patched with a JSON patch sent as `" + JSON_PATCH + "`.");
        }
        return queues.patchMetadata(project, name, body).map(metadata -> metadata);
    }

    @DELETE
    @Path("{name}")
    public Uni<Response> delete(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("name") String name) {
        return queues.delete(Projects.fromRequiredHeader(projectHeader), name).map(ignored -> Response.noContent().build());
    }

    /** Message counts; a queue that does not exist has none (v2 queues exist lazily). */
    @GET
    @Path("{name}/stats")
    public Uni<StatsView> stats(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("name") String name) {
        return messages.statsIfQueueExists(Projects.fromRequiredHeader(projectHeader), name)
                .map(found -> found.map(stats -> StatsView.of(stats, id -> V2Messages.messageHref(name, id)))
                        .orElseGet(StatsView::empty));
    }

    /** Deletes the queue's messages and subscriptions, or those that {@code resource_types} names; the queue stays. */
    @POST
    @Path("{name}/purge")
    public Uni<Response> purge(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("name") String name,
            byte[] body) {
        String project = Projects.fromRequiredHeader(projectHeader);
        QueueNames.validate(name);
        boolean purgeMessages = true;
        boolean purgeSubscriptions = true;
        if (body != null && body.length > 0) {
            ContentTypes.requireJson(contentType);
            JsonNode types = JsonBodies.parse(body).get("resource_types");
            if (types != null) {
                if (!types.isArray() || types.isEmpty()) {
                    throw invalidResourceTypes();
                }
                purgeMessages = false;
                purgeSubscriptions = false;
                for (JsonNode type : types) {
                    if (!type.isTextual() || !PURGEABLE.contains(type.asText())) {
                        throw invalidResourceTypes();
                    }
                    purgeMessages |= type.asText().equals("messages");
                    purgeSubscriptions |= type.asText().equals("subscriptions");
                }
            }
        }
        Uni<Void> purge = purgeMessages ? messages.purge(project, name) : Uni.createFrom().voidItem();
        boolean alsoSubscriptions = purgeSubscriptions;
        return purge.flatMap(ignored -> alsoSubscriptions ? subscriptions.deleteAll(project, name) : Uni.createFrom().voidItem())
                .map(ignored -> Response.noContent().build());
    }

    private static ApiException invalidResourceTypes() {
        return ApiException.invalidRequest("Resource types must be a sub set of {'messages', 'subscriptions'}.");
    }

    private static String nextHref(Queue last, String limitParam, boolean detailed, boolean withCount, String name) {
        StringBuilder href = new StringBuilder("/v2/queues?marker=")
                .append(URLEncoder.encode(last.name(), StandardCharsets.UTF_8));
        if (limitParam != null) {
            href.append("&limit=").append(URLEncoder.encode(limitParam.trim(), StandardCharsets.UTF_8));
        }
        if (detailed) {
            href.append("&detailed=true");
        }
        if (withCount) {
            href.append("&with_count=true");
        }
        if (name != null) {
            href.append("&name=").append(URLEncoder.encode(name, StandardCharsets.UTF_8));
        }
        return href.toString();
    }
}
