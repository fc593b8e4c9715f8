package io.pigeon.api.v2;

import io.pigeon.accesskeys.AccessKeyService;
import io.pigeon.api.RequestCaller;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * A project's access keys for the SQS API (Pigeon's extension beside the v2 API; Zaqar answers this path 404): make a
 * key (201, its secret in this answer only), list the project's keys (never a secret), revoke one (204). Called as any
 * v2 call is (a token for the project in OIDC mode, {@code X-Project-Id} and {@code Client-ID}), and acting on the
 * caller's project only: another project's key answers 404, as a key that does not exist.
 */
@Path(AccessKeyViews.COLLECTION)
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2AccessKeyResource {

    private final AccessKeyService keys;
    private final RequestCaller caller;

    public V2AccessKeyResource(AccessKeyService keys, RequestCaller caller) {
        this.keys = keys;
        this.caller = caller;
    }

    /** 201 with the key, its secret and its {@code Location}; never stored by a cache. */
    @POST
    public Uni<Response> create() {
        String project = caller.requiredProject();
        return keys.create(project).map(key -> Response.status(201)
                .header(HttpHeaders.LOCATION, AccessKeyViews.href(key.accessKeyId()))
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .entity(AccessKeyViews.of(key))
                .build());
    }

    /** The project's live keys and those revoked within a day, oldest first. */
    @GET
    public Uni<AccessKeyViews.Keys> list() {
        String project = caller.requiredProject();
        return keys.list(project).map(AccessKeyViews::of);
    }

    /** Revokes the key: 204, also when it was revoked already; 404 when the project has no such key. */
    @DELETE
    @Path("{key}")
    public Uni<Response> revoke(@PathParam("key") String key) {
        String project = caller.requiredProject();
        return keys.revoke(project, key).map(ignored -> Response.noContent().build());
    }
}
