package io.pigeon.api.v1;

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
 * Zaqar's v1 pools, for the operator role only: the v2 pools without flavors' checks on the answer side, and a
 * patch answered 204 without a body, as Zaqar's v1 answers it. (Unlike Zaqar's v1, an empty page has no next link.)
 */
@V1Call
@Path("/v1/pools")
@Produces(MediaType.APPLICATION_JSON)
public class V1PoolResource {

    private static final String ROOT = "/v1/pools";

    private final PoolService pools;
    private final RequestCaller caller;

    public V1PoolResource(PoolService pools, RequestCaller caller) {
        this.pools = pools;
        this.caller = caller;
    }

    @GET
    public Uni<PoolViews.PoolPage> list(
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @QueryParam("detailed") String detailedParam) {
        caller.requireOperator();
        Integer limit = QueryParamReader.integer("limit", limitParam);
        boolean detailed = QueryParamReader.bool("detailed", detailedParam, false);
        return pools.list(marker, limit).map(page -> PoolViews.page(ROOT, page, limitParam, detailed));
    }

    @PUT
    @Path("{name}")
    public Uni<Response> register(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, @PathParam("name") String name, byte[] body) {
        caller.requireOperator();
        ContentTypes.requireJson(contentType);
        return pools.register(name, PoolReader.pool(body)).map(ignored -> Response.status(201)
                .header(HttpHeaders.LOCATION, ROOT + "/" + name)
                .build());
    }

    @GET
    @Path("{name}")
    public Uni<PoolViews.PoolView> get(@PathParam("name") String name, @QueryParam("detailed") String detailedParam) {
        caller.requireOperator();
        boolean detailed = QueryParamReader.bool("detailed", detailedParam, false);
        return pools.get(name)
                .map(found -> PoolViews.view(found.orElseThrow(() -> missing(name)), ROOT + "/" + name, detailed));
    }

    @PATCH
    @Path("{name}")
    public Uni<Response> update(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, @PathParam("name") String name, byte[] body) {
        caller.requireOperator();
        ContentTypes.requireJson(contentType);
        return pools.update(name, PoolReader.poolPatch(body)).map(found -> {
            found.orElseThrow(() -> missing(name));
            return Response.noContent().build();
        });
    }

    @DELETE
    @Path("{name}")
    public Uni<Response> delete(@PathParam("name") String name) {
        caller.requireOperator();
        return pools.delete(name).map(ignored -> Response.noContent().build());
    }

    private static ApiException missing(String name) {
        return ApiException.notFound("Pool " + name + " does not exist");
    }
}
