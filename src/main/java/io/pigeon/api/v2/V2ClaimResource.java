package io.pigeon.api.v2;

import io.pigeon.api.ContentTypes;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.read.ClaimReleaseReader;
import io.pigeon.api.read.ClaimTermsReader;
import io.pigeon.api.read.IncludedFields;
import io.pigeon.api.read.QueryParamReader;
import io.pigeon.api.read.WaitReader;
import io.pigeon.api.view.Hrefs;
import io.pigeon.claim.ClaimService;
import io.pigeon.claim.ClaimTerms;
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
import java.util.List;

/**
 * The v2 and v1.1 claim resources: claim (ttl and grace default to 300 and 60), query, renew, release; and Pigeon's
 * release of single messages of a claim.
 */
@Path("/" + DialectPaths.SEGMENT + "/queues/{queue}/claims")
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2ClaimResource {

    private final ClaimService claims;
    private final RequestCaller caller;
    private final QueueWaits waits;

    public V2ClaimResource(ClaimService claims, RequestCaller caller, QueueWaits waits) {
        this.claims = claims;
        this.caller = caller;
        this.waits = waits;
    }

    /**
     * 201 {@code {"messages": [...]}} with Location, or 204 when nothing is free (or the queue is absent). With a wait
     * (the body's {@code wait}, {@code Prefer: wait=N}, or the queue's {@code _claim_wait_seconds}), a claim that finds
     * nothing free waits up to so long for a message before its 204.
     */
    @POST
    public Uni<Response> claim(
            @PathParam("version") String version,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @HeaderParam("Prefer") String prefer,
            @PathParam("queue") String queueName,
            @QueryParam("limit") String limitParam,
            @QueryParam("include") List<String> include,
            @Context HttpServerResponse response,
            byte[] body) {
        String project = caller.requiredProject();
        boolean hasBody = body != null && body.length > 0;
        if (hasBody) {
            ContentTypes.requireJson(contentType);
        }
        Integer limit = QueryParamReader.integer("limit", limitParam);
        ClaimTermsReader.Claim request = hasBody
                ? ClaimTermsReader.claimWithWait(body, DialectPaths.version(version), waits.maxSeconds())
                : new ClaimTermsReader.Claim(ClaimService.RequestedTerms.NONE, null);
        ClaimTerms terms = claims.terms(request.terms());
        Integer preferred = request.waitSeconds() == null ? WaitReader.fromPrefer(prefer, waits.maxSeconds()) : null;
        Integer wait = request.waitSeconds() != null ? request.waitSeconds() : preferred;
        QueueName queue = QueueName.of(queueName);
        IncludedFields.Shown claimCount = IncludedFields.shown(DialectPaths.version(version), include);
        return claims.take(
                        project,
                        caller.grantSignature().orElse(null),
                        queue,
                        limit,
                        terms,
                        wait,
                        () -> !response.closed())
                .map(taken -> {
                    Response.ResponseBuilder answer = taken.filter(
                                    claim -> !claim.messages().isEmpty())
                            .map(claim -> Response.status(201)
                                    .header(
                                            HttpHeaders.LOCATION,
                                            Hrefs.claim(DialectPaths.version(version), queue, claim.id()))
                                    .entity(new V2Views.Messages(
                                            V2Views.claimedItems(
                                                    DialectPaths.version(version),
                                                    queue,
                                                    claim.id(),
                                                    claim.messages(),
                                                    claimCount),
                                            null)))
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
    public Uni<V2Views.ClaimView> get(
            @PathParam("version") String version,
            @PathParam("queue") String queueName,
            @PathParam("claimId") String claimId,
            @QueryParam("include") List<String> include) {
        String project = caller.requiredProject();
        QueueName queue = QueueName.of(queueName);
        IncludedFields.Shown claimCount = IncludedFields.shown(DialectPaths.version(version), include);
        return claims.getNamed(project, queue, claimId)
                .map(claim -> new V2Views.ClaimView(
                        claim.age(),
                        claim.ttl(),
                        V2Views.claimedItems(
                                DialectPaths.version(version), queue, claim.id(), claim.messages(), claimCount),
                        Hrefs.claim(DialectPaths.version(version), queue, claim.id())));
    }

    @PATCH
    @Path("{claimId}")
    public Uni<Response> renew(
            @PathParam("version") String version,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("queue") String queueName,
            @PathParam("claimId") String claimId,
            byte[] body) {
        String project = caller.requiredProject();
        ContentTypes.requireJson(contentType);
        // As in Zaqar v2, a renewal that names no ttl or grace takes the defaults ({} renews for 300 s, grace 60).
        ClaimService.RequestedTerms terms =
                claims.withDefaults(ClaimTermsReader.renewal(body, DialectPaths.version(version)));
        return claims.renewNamed(project, QueueName.of(queueName), claimId, terms)
                .map(ignored -> Response.noContent().build());
    }

    @DELETE
    @Path("{claimId}")
    public Uni<Response> release(
            @PathParam("version") String version,
            @PathParam("queue") String queueName,
            @PathParam("claimId") String claimId) {
        String project = caller.requiredProject();
        return claims.releaseNamed(project, QueueName.of(queueName), claimId)
                .map(ignored -> Response.noContent().build());
    }

    /**
     * Pigeon's extension: releases single messages of a live claim ({@code {"ids": [...], "delay": seconds}}), free
     * again at once or after the delay, their claim counts kept; the claim keeps the others. 204; 404 as a renewal's
     * when the claim is not the caller's or has ended. A path of its own, so a real Zaqar answers it 404.
     */
    @POST
    @Path("{claimId}/release")
    public Uni<Response> releaseMessages(
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("queue") String queueName,
            @PathParam("claimId") String claimId,
            byte[] body) {
        String project = caller.requiredProject();
        ContentTypes.requireJson(contentType);
        return claims.releaseMessagesNamed(project, QueueName.of(queueName), claimId, ClaimReleaseReader.read(body))
                .map(ignored -> Response.noContent().build());
    }
}
