package io.pigeon.api.v2;

import io.pigeon.api.ContentTypes;
import io.pigeon.api.Public;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.home.StaticFiles;
import io.pigeon.api.home.V2Home;
import io.pigeon.health.DatabaseProbe;
import io.pigeon.health.StorageHealth;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** The versions document, the v2 and v1.1 home documents, ping and the operator's storage health. */
@Path("/")
public class V2DiscoveryResource {

    private static final String VERSIONS = StaticFiles.load("/api/versions.json");

    private final StorageHealth storage;
    private final DatabaseProbe database;
    private final RequestCaller caller;

    public V2DiscoveryResource(StorageHealth storage, DatabaseProbe database, RequestCaller caller) {
        this.storage = storage;
        this.database = database;
        this.caller = caller;
    }

    /** 300 Multiple Choices: the API versions this server speaks. */
    @GET
    @Public
    @Produces(MediaType.APPLICATION_JSON)
    public Response versions() {
        return Response.status(300)
                .entity(VERSIONS)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .build();
    }

    @GET
    @Public
    @Path(DialectPaths.SEGMENT)
    @Produces({ContentTypes.JSON_HOME, MediaType.APPLICATION_JSON})
    public Response home(@PathParam("version") String version, HttpServerRequest request) {
        // As in Zaqar, the document lives at "/v2/"; "/v2" is a 404.
        if (!request.path().endsWith("/")) {
            throw new NotFoundException();
        }
        boolean operator = caller.operator();
        String document = V2Home.of(DialectPaths.version(version), operator);
        // The operator's form must not be kept by a shared cache and served to others.
        return Response.ok(document, ContentTypes.JSON_HOME)
                .header(HttpHeaders.CACHE_CONTROL, operator ? "private, max-age=86400" : "max-age=86400")
                .header(HttpHeaders.VARY, "Authorization, X-Roles")
                .build();
    }

    /** As in Zaqar: 204 while the database answers, 503 when it does not (no body either way). */
    @GET
    @V2Call
    @Path(DialectPaths.SEGMENT + "/ping")
    public Uni<Response> ping() {
        return database.reachable().map(up -> Response.status(up ? 204 : 503).build());
    }

    /** Zaqar answers HEAD on ping with 204 without asking the store. */
    @HEAD
    @V2Call
    @Path(DialectPaths.SEGMENT + "/ping")
    public Response pingHead() {
        return Response.noContent().build();
    }

    /**
     * The operator's detailed storage health; 403 for anyone else (also in v1.1, where Zaqar 15 checks no role:
     * the report names the storage's state, which is the operator's business).
     */
    @GET
    @V2Call
    @Path(DialectPaths.SEGMENT + "/health")
    @Produces(MediaType.APPLICATION_JSON)
    public Uni<StorageHealth.Report> health() {
        caller.requireOperator();
        return storage.report();
    }

    /** Zaqar serves the health report to GET only. */
    @HEAD
    @Path(DialectPaths.SEGMENT + "/health")
    public Response healthHead() {
        throw new NotAllowedException("GET");
    }
}
