package io.pigeon.api.v2;

import io.pigeon.api.ClaimDocuments;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.QueryParams;
import io.pigeon.claim.ClaimService;
import io.pigeon.claim.ClaimTerms;
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

/** The v2 claim resources: claim (ttl and grace default to 300 and 60), query, renew, release. */
@Path("/v2/queues/{queue}/claims")
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2ClaimResource {

    private final ClaimService claims;

    public V2ClaimResource(ClaimService claims) {
        this.claims = claims;
    }

    /** 201 {@code {"messages": [...]}} with Location, or 204 when nothing is free (or the queue is absent). */
    @POST
    public Uni<Response> claim(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("queue") String queue,
            @QueryParam("limit") String limitParam,
            byte[] body) {
        String project = Projects.fromRequiredHeader(projectHeader);
        boolean hasBody = body != null && body.length > 0;
        if (hasBody) {
            ContentTypes.requireJson(contentType);
        }
        Integer limit = QueryParams.integer("limit", limitParam);
        ClaimTerms terms = claims.terms(hasBody ? ClaimDocuments.claim(body, false) : ClaimService.RequestedTerms.NONE);
        return claims.take(project, queue, limit, terms).map(taken -> taken
                .filter(claim -> !claim.messages().isEmpty())
                .map(claim -> Response.status(201)
                        .header(HttpHeaders.LOCATION, V2Messages.claimHref(queue, claim.id()))
                        .entity(new V2Messages.Messages(V2Messages.claimedItems(queue, claim.id(), claim.messages()), null))
                        .build())
                .orElseGet(() -> Response.noContent().build()));
    }

    @GET
    @Path("{claimId}")
    public Uni<V2Messages.ClaimView> get(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("queue") String queue,
            @PathParam("claimId") String claimId) {
        return claims.get(Projects.fromRequiredHeader(projectHeader), queue, claimId)
                .map(claim -> new V2Messages.ClaimView(claim.age(), claim.ttl(),
                        V2Messages.claimedItems(queue, claim.id(), claim.messages()), V2Messages.claimHref(queue, claim.id())));
    }

    @PATCH
    @Path("{claimId}")
    public Uni<Response> renew(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("queue") String queue,
            @PathParam("claimId") String claimId,
            byte[] body) {
        String project = Projects.fromRequiredHeader(projectHeader);
        ContentTypes.requireJson(contentType);
        return claims.renew(project, queue, claimId, ClaimDocuments.renewal(body))
                .map(ignored -> Response.noContent().build());
    }

    @DELETE
    @Path("{claimId}")
    public Uni<Response> release(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("queue") String queue,
            @PathParam("claimId") String claimId) {
        return claims.release(Projects.fromRequiredHeader(projectHeader), queue, claimId)
                .map(ignored -> Response.noContent().build());
    }
}
