package io.pigeon.api.v2;

import io.pigeon.api.ApiException;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.read.PoolReader;
import io.pigeon.api.read.QueryParamReader;
import io.pigeon.api.view.PoolViews;
import io.pigeon.pool.PoolService;
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
 * Zaqar's pools (v2 admin API), for the operator role only: the PostgreSQL servers that may hold queues. A pool's
 * uri is answered without its password.
 */
@Path("/v2/pools")
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2PoolResource {

    static final String ROOT = "/v2/pools";

    private final PoolService pools;
    private final RequestCaller caller;

    public V2PoolResource(PoolService pools, RequestCaller caller) {
        this.pools = pools;
        this.caller = caller;
    }

    @GET
    public Uni<PoolViews.PoolPage> list(
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @QueryParam("detailed") String detailedParam) {
        caller.requireProjectAndOperator();
        Integer limit = QueryParamReader.integer("limit", limitParam);
        boolean detailed = QueryParamReader.bool("detailed", detailedParam, false);
        return pools.list(marker, limit).map(page -> PoolViews.page(ROOT, page, limitParam, detailed));
    }

    /** Registers or replaces the pool, once its server has answered and taken Pigeon's schema: 201. */
    @PUT
    @Path("{name}")
    public Uni<Response> register(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, @PathParam("name") String name, byte[] body) {
        caller.requireProjectAndOperator();
        ContentTypes.requireJson(contentType);
        return pools.register(name, PoolReader.pool(body)).map(ignored -> Response.status(201)
                .header(HttpHeaders.LOCATION, ROOT + "/" + name)
                .build());
    }

    @GET
    @Path("{name}")
    public Uni<PoolViews.PoolView> get(@PathParam("name") String name, @QueryParam("detailed") String detailedParam) {
        caller.requireProjectAndOperator();
        boolean detailed = QueryParamReader.bool("detailed", detailedParam, false);
        return pools.get(name)
                .map(found -> PoolViews.view(found.orElseThrow(() -> missing(name)), ROOT + "/" + name, detailed));
    }

    /** Changes the fields sent: 200 with the pool (without options, as Zaqar answers). */
    @PATCH
    @Path("{name}")
    public Uni<PoolViews.PoolView> update(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, @PathParam("name") String name, byte[] body) {
        caller.requireProjectAndOperator();
        ContentTypes.requireJson(contentType);
        return pools.update(name, PoolReader.poolPatch(body))
                .map(found -> PoolViews.view(found.orElseThrow(() -> missing(name)), ROOT + "/" + name, false));
    }

    @DELETE
    @Path("{name}")
    public Uni<Response> delete(@PathParam("name") String name) {
        caller.requireProjectAndOperator();
        return pools.delete(name).map(ignored -> Response.noContent().build());
    }

    static ApiException missing(String name) {
        return ApiException.notFound("Pool " + name + " does not exist");
    }
}
