package io.pigeon.api.v2;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.ApiDialect;
import io.pigeon.api.ApiException;
import io.pigeon.api.ApiVersion;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.read.JsonBodyReader;
import io.pigeon.api.read.MetadataPatchReader;
import io.pigeon.api.read.PurgeReader;
import io.pigeon.api.read.QueryParamReader;
import io.pigeon.api.read.QueueMetadataReader;
import io.pigeon.api.read.ShareReader;
import io.pigeon.api.view.Hrefs;
import io.pigeon.api.view.NextLinks;
import io.pigeon.api.view.PageLink;
import io.pigeon.api.view.StatsView;
import io.pigeon.config.PigeonConfig;
import io.pigeon.json.StrictJson;
import io.pigeon.message.MessageService;
import io.pigeon.purge.QueuePurge;
import io.pigeon.queue.MetadataPatch;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.pigeon.tenancy.SignedUrls;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
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
import java.time.Instant;
import java.util.List;

/**
 * The v2 queue resources: list, create, metadata (read and JSON-patch), delete, stats, purge and share; the same
 * for v2's topics (without share, and listed without a count); and the v1.1 queue ones, which are these without
 * patch, purge and share, and with the metadata as stored (no reserved defaults), as Zaqar's v1.1 answers.
 */
@Path("/" + DialectPaths.SEGMENT + "/" + DialectPaths.COLLECTION)
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2QueueResource {

    static final String JSON_PATCH = "application/openstack-messaging-v2.0-json-patch";

    private final QueueService queues;
    private final MessageService messages;
    private final QueuePurge purges;
    private final RequestCaller caller;
    private final SignedUrls signedUrls;
    private final PigeonConfig config;

    public V2QueueResource(
            QueueService queues,
            MessageService messages,
            QueuePurge purges,
            RequestCaller caller,
            SignedUrls signedUrls,
            PigeonConfig config) {
        this.signedUrls = signedUrls;
        this.queues = queues;
        this.messages = messages;
        this.purges = purges;
        this.caller = caller;
        this.config = config;
    }

    @GET
    public Uni<V2Views.Listing> list(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @QueryParam("detailed") String detailedParam,
            @QueryParam("with_count") String withCountParam,
            @QueryParam("name") String name) {
        ApiDialect dialect = DialectPaths.dialect(version, collection);
        boolean topics = dialect.topics();
        String project = caller.requiredProject();
        Integer limit = QueryParamReader.integer("limit", limitParam);
        boolean detailed = QueryParamReader.bool("detailed", detailedParam, false);
        // v1.1 has neither the count nor the name filter: it ignores both, as Zaqar's v1.1 does. Zaqar lists topics
        // without a count.
        boolean withCount = dialect.countsListing() && QueryParamReader.bool("with_count", withCountParam, false);
        boolean filtered = dialect.version().has(ApiVersion.Feature.NAME_FILTER);
        String nameFilter = !filtered || name == null || name.isEmpty() ? null : name;
        boolean withDefaults = dialect.version().has(ApiVersion.Feature.RESERVED_ATTRIBUTES);
        String listed = Hrefs.collection(dialect);
        Uni<Long> count =
                withCount ? queues.count(project, nameFilter) : Uni.createFrom().nullItem();
        return queues.list(project, topics, marker, limit, detailed, nameFilter)
                .flatMap(page -> count.map(total -> {
                    List<V2Views.QueueEntry> entries = page.stream()
                            .map(q -> new V2Views.QueueEntry(
                                    q.name(),
                                    listed + "/" + q.name(),
                                    detailed
                                            ? (withDefaults
                                                    ? queues.withDefaults(q, topics)
                                                    : StrictJson.readStoredObject(q.metadataJson()))
                                            : null))
                            .toList();
                    List<PageLink> links = page.isEmpty()
                            ? List.of()
                            : List.of(NextLinks.after(
                                            listed, page.get(page.size() - 1).name())
                                    .option("limit", limitParam)
                                    .flag("detailed", detailed)
                                    .flag("with_count", withCount)
                                    .option("name", nameFilter)
                                    .link());
                    return topics
                            ? (V2Views.Listing) new V2Views.TopicList(entries, links)
                            : new V2Views.QueueList(entries, links, total);
                }));
    }

    /** Creates the queue, with the metadata document if one is sent: 201, or 204 when it already exists. */
    @PUT
    @Path("{name}")
    public Uni<Response> create(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("name") String name,
            byte[] body) {
        String project = caller.requiredProject();
        boolean hasBody = body != null && body.length > 0;
        if (hasBody) {
            ContentTypes.requireJson(contentType);
        }
        ApiDialect dialect = DialectPaths.dialect(version, collection);
        QueueName queue = dialect.name(name);
        ObjectNode metadata = hasBody
                ? QueueMetadataReader.metadata(body, config.maxQueueMetadata())
                : JsonNodeFactory.instance.objectNode();
        return queues.create(project, queue, metadata).map(created -> Response.status(created ? 201 : 204)
                .header(HttpHeaders.LOCATION, Hrefs.queue(dialect.version(), queue))
                .build());
    }

    /**
     * The queue's metadata with its reserved attributes (defaults where unset), as Zaqar v2 answers it; in v1.1
     * the metadata as stored. Either way a queue that does not exist answers as an empty one (200).
     */
    @GET
    @Path("{name}")
    public Uni<JsonNode> get(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @PathParam("name") String name) {
        String project = caller.requiredProject();
        ApiDialect dialect = DialectPaths.dialect(version, collection);
        QueueName queue = dialect.name(name);
        if (!dialect.version().has(ApiVersion.Feature.RESERVED_ATTRIBUTES)) {
            return queues.metadata(project, queue).map(found -> found.<JsonNode>map(StrictJson::readStoredObject)
                    .orElseGet(JsonNodeFactory.instance::objectNode));
        }
        return queues.metadataWithDefaults(project, queue).map(metadata -> metadata);
    }

    /** Zaqar answers HEAD on a queue with 405 (v2 and v1.1). */
    @HEAD
    @Path("{name}")
    public Response head() {
        throw new NotAllowedException("GET");
    }

    @PATCH
    @Path("{name}")
    public Uni<JsonNode> patch(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("name") String name,
            byte[] body) {
        if (!DialectPaths.version(version).has(ApiVersion.Feature.METADATA_PATCH)) {
            throw new NotAllowedException("GET");
        }
        String project = caller.requiredProject();
        if (contentType == null || !contentType.split(";", 2)[0].trim().equalsIgnoreCase(JSON_PATCH)) {
            throw new ApiException(
                    415,
                    "Accepted media type for PATCH: {'Accept-Patch': '" + JSON_PATCH + "'}.",
                    "A queue is patched with a JSON patch sent as `" + JSON_PATCH + "`.");
        }
        QueueName queue = DialectPaths.dialect(version, collection).name(name);
        MetadataPatch patch = MetadataPatchReader.read(JsonBodyReader.parse(body));
        return queues.patchMetadata(project, queue, patch)
                .map(patched -> patched.orElseThrow(() -> QueueService.queueNotFound(project, queue)));
    }

    @DELETE
    @Path("{name}")
    public Uni<Response> delete(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @PathParam("name") String name) {
        String project = caller.requiredProject();
        QueueName queue = DialectPaths.dialect(version, collection).name(name);
        return queues.delete(project, queue).map(ignored -> Response.noContent().build());
    }

    /**
     * Message counts; a queue that does not exist has none (v2 queues exist lazily). v2 adds Pigeon's {@code delayed}
     * inside {@code messages} unless {@code ?delayed=false}; v1.1 only with {@code ?delayed=true}, as Zaqar's own v1.1
     * suite compares the whole document (v2's checks only the keys it knows).
     */
    @GET
    @Path("{name}/stats")
    public Uni<StatsView> stats(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @PathParam("name") String name,
            @QueryParam("delayed") String delayedParam) {
        String project = caller.requiredProject();
        ApiDialect dialect = DialectPaths.dialect(version, collection);
        QueueName queue = dialect.name(name);
        boolean delayed = QueryParamReader.bool("delayed", delayedParam, dialect.version() == ApiVersion.V2);
        return messages.stats(project, queue).map(found -> found.map(
                        stats -> StatsView.of(stats, id -> Hrefs.message(dialect.version(), queue, id), delayed))
                .orElseGet(() -> StatsView.empty(delayed)));
    }

    /** Deletes the queue's messages and subscriptions, or those that {@code resource_types} names; the queue stays. */
    @POST
    @Path("{name}/purge")
    public Uni<Response> purge(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("name") String name,
            byte[] body) {
        DialectPaths.require(DialectPaths.version(version), ApiVersion.Feature.PURGE);
        String project = caller.requiredProject();
        QueueName queue = DialectPaths.dialect(version, collection).name(name);
        PurgeReader.Purge purge = PurgeReader.Purge.ALL;
        if (body != null && body.length > 0) {
            ContentTypes.requireJson(contentType);
            purge = PurgeReader.read(JsonBodyReader.parse(body));
        }
        return purges.purge(project, queue, purge.messages(), purge.subscriptions())
                .map(ignored -> Response.noContent().build());
    }

    /**
     * Signs a grant of some methods on some of the queue's resources for the caller's project (Zaqar's pre-signed
     * URLs): 200 with the paths, methods, project, expiry and signature a client sends back as headers.
     */
    @POST
    @Path("{name}/share")
    public V2Views.Shared share(
            @PathParam("version") String version,
            @PathParam("collection") String collection,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("name") String name,
            byte[] body) {
        if (!DialectPaths.dialect(version, collection).shares()) {
            throw new NotFoundException();
        }
        String project = caller.requiredProject();
        QueueName queue = QueueName.of(name);
        ContentTypes.requireJson(contentType);
        ShareReader.Share share = ShareReader.read(JsonBodyReader.parse(body), queue, Instant.now());
        SignedUrls.Grant grant = signedUrls.sign(share.paths(), share.methods(), project, share.expires());
        return new V2Views.Shared(grant.paths(), grant.methods(), grant.project(), grant.expires(), grant.signature());
    }
}
