package io.pigeon.api.v1;

import io.pigeon.api.ClaimDocuments;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.QueryParams;
import io.pigeon.claim.ClaimService;
import io.pigeon.tenancy.Projects;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** The v1 claim resources: claim, query, renew and release. */
@Path("/v1/queues/{queue}/claims")
@Produces(MediaType.APPLICATION_JSON)
public class V1ClaimResource {

    private final ClaimService claims;

    public V1ClaimResource(ClaimService claims) {
        this.claims = claims;
    }

    /** v1 requires both ttl and grace. 201 with the claimed messages, or 204 when none is free. */
    @POST
    public Uni<Response> claim(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("queue") String queue,
            @QueryParam("limit") String limitParam,
            byte[] body) {
        String project = Projects.fromOptionalHeader(projectHeader);
        ContentTypes.requireJson(contentType);
        Integer limit = QueryParams.integer("limit", limitParam);
        var terms = claims.terms(ClaimDocuments.claim(body, true));
        return claims.create(project, queue, limit, terms).map(claim -> claim.messages().isEmpty()
                ? Response.noContent().build()
                : Response.status(201)
                        .header(HttpHeaders.LOCATION, V1Messages.claimHref(queue, claim.id()))
                        .entity(V1Messages.claimedItems(queue, claim.id(), claim.messages()))
                        .build());
    }

    @GET
    @Path("{claimId}")
    public Uni<Response> get(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("queue") String queue,
            @PathParam("claimId") String claimId) {
        String project = Projects.fromOptionalHeader(projectHeader);
        return claims.get(project, queue, claimId).map(claim -> {
            String href = V1Messages.claimHref(queue, claim.id());
            return Response.ok(new V1Messages.ClaimView(claim.age(), claim.ttl(),
                            V1Messages.claimedItems(queue, claim.id(), claim.messages()), href))
                    .header("Content-Location", href)
                    .build();
        });
    }

    @PATCH
    @Path("{claimId}")
    public Uni<Response> renew(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("queue") String queue,
            @PathParam("claimId") String claimId,
            byte[] body) {
        String project = Projects.fromOptionalHeader(projectHeader);
        ContentTypes.requireJson(contentType);
        return claims.renew(project, queue, claimId, ClaimDocuments.renewal(body))
                .map(ignored -> Response.noContent().build());
    }

    @DELETE
    @Path("{claimId}")
    public Uni<Response> release(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("queue") String queue,
            @PathParam("claimId") String claimId) {
        String project = Projects.fromOptionalHeader(projectHeader);
        return claims.release(project, queue, claimId).map(ignored -> Response.noContent().build());
    }

}
