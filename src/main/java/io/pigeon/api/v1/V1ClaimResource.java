package io.pigeon.api.v1;

import io.pigeon.api.ApiVersion;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.read.ClaimTermsReader;
import io.pigeon.api.read.QueryParamReader;
import io.pigeon.api.read.WaitReader;
import io.pigeon.api.view.Hrefs;
import io.pigeon.claim.ClaimService;
import io.pigeon.queue.QueueName;
import io.pigeon.waiting.QueueWaits;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerResponse;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** The v1 claim resources: claim, query, renew and release. */
@V1Call
@Path("/v1/queues/{queue}/claims")
@Produces(MediaType.APPLICATION_JSON)
public class V1ClaimResource {

    private final ClaimService claims;
    private final RequestCaller caller;
    private final QueueWaits waits;

    public V1ClaimResource(ClaimService claims, RequestCaller caller, QueueWaits waits) {
        this.claims = claims;
        this.caller = caller;
        this.waits = waits;
    }

    /**
     * v1 requires both ttl and grace. 201 with the claimed messages, or 204 when none is free. The body is Zaqar v1's
     * (a {@code wait} in it is ignored, as Zaqar ignores unknown fields); a claim waits for a message (Pigeon's long
     * polling) with {@code Prefer: wait=N} or its queue's {@code _claim_wait_seconds}.
     */
    @POST
    public Uni<Response> claim(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @HeaderParam("Prefer") String prefer,
            @PathParam("queue") String queueName,
            @QueryParam("limit") String limitParam,
            @Context HttpServerResponse response,
            byte[] body) {
        String project = caller.optionalProject();
        ContentTypes.requireJson(contentType);
        Integer limit = QueryParamReader.integer("limit", limitParam);
        var terms = claims.terms(ClaimTermsReader.claim(body, ApiVersion.V1));
        Integer preferred = WaitReader.fromPrefer(prefer, waits.maxSeconds());
        QueueName queue = QueueName.of(queueName);
        // As in Zaqar 15, a claim on a queue that does not exist claims nothing: 204.
        return claims.take(
                        project,
                        caller.grantSignature().orElse(null),
                        queue,
                        limit,
                        terms,
                        preferred,
                        () -> !response.closed())
                .map(taken -> {
                    Response.ResponseBuilder answer = taken.filter(
                                    claim -> !claim.messages().isEmpty())
                            .map(claim -> Response.status(201)
                                    .header(HttpHeaders.LOCATION, Hrefs.claim(ApiVersion.V1, queue, claim.id()))
                                    .entity(V1Views.claimedItems(queue, claim.id(), claim.messages())))
                            .orElseGet(Response::noContent);
                    // A queue that does not exist is not waited for (empty): the preference was not applied.
                    return preferred == null || taken.isEmpty()
                            ? answer.build()
                            : answer.header(WaitReader.PREFERENCE_APPLIED, WaitReader.applied(preferred))
                                    .build();
                });
    }

    @GET
    @Path("{claimId}")
    public Uni<Response> get(@PathParam("queue") String queueName, @PathParam("claimId") String claimId) {
        String project = caller.optionalProject();
        QueueName queue = QueueName.of(queueName);
        return claims.getNamed(project, queue, claimId).map(claim -> {
            String href = Hrefs.claim(ApiVersion.V1, queue, claim.id());
            return Response.ok(new V1Views.ClaimView(
                            claim.age(), claim.ttl(), V1Views.claimedItems(queue, claim.id(), claim.messages()), href))
                    .header("Content-Location", href)
                    .build();
        });
    }

    @PATCH
    @Path("{claimId}")
    public Uni<Response> renew(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("queue") String queueName,
            @PathParam("claimId") String claimId,
            byte[] body) {
        String project = caller.optionalProject();
        ContentTypes.requireJson(contentType);
        return claims.renewNamed(
                        project, QueueName.of(queueName), claimId, ClaimTermsReader.renewal(body, ApiVersion.V1))
                .map(ignored -> Response.noContent().build());
    }

    @DELETE
    @Path("{claimId}")
    public Uni<Response> release(@PathParam("queue") String queueName, @PathParam("claimId") String claimId) {
        String project = caller.optionalProject();
        return claims.releaseNamed(project, QueueName.of(queueName), claimId)
                .map(ignored -> Response.noContent().build());
    }
}
