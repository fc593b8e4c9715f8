package io.pigeon.api.v2;

import io.pigeon.api.ApiException;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.read.PoolReader;
import io.pigeon.api.read.QueryParamReader;
import io.pigeon.api.view.PoolViews;
import io.pigeon.pool.FlavorService;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * Zaqar's flavors (v2): named classes of pools. Any caller may read them (as in Zaqar, so that a project can choose
 * one for its queues); only the operator may create, change or delete one.
 */
@Path("/v2/flavors")
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2FlavorResource {

    static final String ROOT = "/v2/flavors";

    private final FlavorService flavors;
    private final RequestCaller caller;

    public V2FlavorResource(FlavorService flavors, RequestCaller caller) {
        this.flavors = flavors;
        this.caller = caller;
    }

    @GET
    public Uni<PoolViews.FlavorPage> list(
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @QueryParam("detailed") String detailedParam) {
        caller.requiredProject();
        Integer limit = QueryParamReader.integer("limit", limitParam);
        boolean detailed = QueryParamReader.bool("detailed", detailedParam, false);
        return flavors.list(marker, limit).map(page -> PoolViews.flavorPage(ROOT, page, limitParam, detailed));
    }

    /** Creates the flavor with exactly the pools of {@code pool_list} (each must exist): 201. */
    @PUT
    @Path("{name}")
    public Uni<Response> create(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, @PathParam("name") String name, byte[] body) {
        caller.requireProjectAndOperator();
        ContentTypes.requireJson(contentType);
        return flavors.create(name, PoolReader.poolList(body)).map(ignored -> Response.status(201)
                .header(HttpHeaders.LOCATION, ROOT + "/" + name)
                .build());
    }

    @GET
    @Path("{name}")
    public Uni<PoolViews.FlavorView> get(@PathParam("name") String name) {
        caller.requiredProject();
        return flavors.get(name)
                .map(found -> PoolViews.view(found.orElseThrow(() -> missing(name)), ROOT + "/" + name, true));
    }

    /** Sets the flavor's pools to {@code pool_list}: 200 with the flavor. */
    @PATCH
    @Path("{name}")
    public Uni<PoolViews.FlavorView> update(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, @PathParam("name") String name, byte[] body) {
        caller.requireProjectAndOperator();
        ContentTypes.requireJson(contentType);
        return flavors.update(name, PoolReader.poolList(body))
                .map(found -> PoolViews.view(found.orElseThrow(() -> missing(name)), ROOT + "/" + name, true));
    }

    @DELETE
    @Path("{name}")
    public Uni<Response> delete(@PathParam("name") String name) {
        caller.requireProjectAndOperator();
        return flavors.delete(name).map(ignored -> Response.noContent().build());
    }

    private static ApiException missing(String name) {
        return ApiException.notFound("Flavor " + name + " does not exist");
    }
}
