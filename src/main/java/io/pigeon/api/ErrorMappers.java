package io.pigeon.api;

import io.pigeon.encryption.MessageCipher;
import io.pigeon.quota.Quotas;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.DatabaseFailures;
import io.pigeon.tenancy.Unauthenticated;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.NotAcceptableException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.NotSupportedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * Turns every failure into Zaqar's error document, so that no client ever sees an HTML page, an empty
 * error body or a stack trace.
 */
public class ErrorMappers {

    private static final Logger LOG = Logger.getLogger(ErrorMappers.class);

    public static Response error(int status, String title, String description) {
        return Response.status(status)
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new ErrorDocument(title, description))
                .build();
    }

    @ServerExceptionMapper
    public Response unauthenticated(Unauthenticated e) {
        return Response.fromResponse(error(401, "Unauthorized", e.getMessage()))
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
                .build();
    }

    @ServerExceptionMapper
    public Response api(ApiException e) {
        return e.toResponse();
    }

    /** The domain refused the request: its reason decides status and title (one table, {@link Rejections}). */
    @ServerExceptionMapper
    public Response rejected(Rejection e) {
        return Rejections.toResponse(e);
    }

    /**
     * A routing miss. When resource classes share a path prefix, the REST layer reports a known path with an
     * unsupported method as not found; the Allow table knows the path, so that case is answered 405.
     */
    @ServerExceptionMapper
    public Response unknownResource(NotFoundException e, HttpServerRequest request) {
        if (AllowedMethods.forPath(request.path()) != null) {
            return methodNotAllowed(request);
        }
        return error(404, "404 Not Found", "The resource " + request.path() + " does not exist.");
    }

    /** As in Zaqar, a pre-signed URL that does not grant the request is a 404, whatever the reason. */
    @ServerExceptionMapper
    public Response signatureRefused(SignedRequests.Refused e, HttpServerRequest request) {
        return error(404, "404 Not Found", "The resource " + request.path() + " does not exist.");
    }

    @ServerExceptionMapper
    public Response unsupportedMethod(NotAllowedException e, HttpServerRequest request) {
        return methodNotAllowed(request);
    }

    private static Response methodNotAllowed(HttpServerRequest request) {
        Response response = error(
                405,
                "405 Method Not Allowed",
                "The method " + request.method() + " is not supported by " + request.path() + ".");
        String allow = AllowedMethods.forPath(request.path());
        return allow == null
                ? response
                : Response.fromResponse(response)
                        .header(HttpHeaders.ALLOW, allow)
                        .build();
    }

    @ServerExceptionMapper
    public Response notAcceptable(NotAcceptableException e) {
        return error(
                406,
                "Not acceptable",
                "The only media type this API produces is `application/json`; "
                        + "ask for it with the \"Accept\" header.");
    }

    @ServerExceptionMapper
    public Response unsupportedMediaType(NotSupportedException e, HttpServerRequest request) {
        return ContentTypes.invalidContentType(request.getHeader(HttpHeaders.CONTENT_TYPE))
                .toResponse();
    }

    @ServerExceptionMapper
    public Response web(WebApplicationException e, HttpServerRequest request) {
        Response.StatusType status = e.getResponse().getStatusInfo();
        if (status.getStatusCode() == 400) {
            ApiException unreadable = ContentTypes.unreadableContentType(request.getHeader(HttpHeaders.CONTENT_TYPE));
            if (unreadable != null) {
                return unreadable.toResponse();
            }
        }
        return error(
                status.getStatusCode(),
                status.getReasonPhrase(),
                e.getMessage() == null ? status.getReasonPhrase() : e.getMessage());
    }

    /** A sealed message whose key is missing or whose text was changed: the operator's to fix, so it is logged. */
    @ServerExceptionMapper
    public Response unreadable(MessageCipher.Unreadable e) {
        LOG.error(e.getMessage());
        return error(500, "Internal server error", "A stored message cannot be decrypted; it has been logged.");
    }

    @ServerExceptionMapper
    public Response unexpected(Throwable e) {
        Rejection quota = Quotas.refusal(e);
        if (quota != null) {
            // The statement failed whole: nothing was stored.
            return Rejections.toResponse(quota);
        }
        if (e instanceof IOException && "Request too large".equals(e.getMessage())) {
            // A streamed body past the bound: the HTTP layer has answered 413 already; the client's fault, not ours.
            return error(413, "Request entity too large", "The request body is too large.");
        }
        if (DatabaseFailures.isAbortedByConflict(e)) {
            // Run again already (see DatabaseFailures.retriedOnConflict), or a statement that is not: nothing was
            // changed, and the client may simply try again.
            LOG.warnf("Statement aborted by a conflict with a concurrent one: %s", e.toString());
            return error(
                    503,
                    "Service temporarily unavailable",
                    "The request conflicted with a concurrent one and changed nothing. Please try again.");
        }
        if (DatabaseFailures.isUnavailable(e)) {
            LOG.warnf("Database unavailable: %s", e.toString());
            return error(
                    503,
                    "Service temporarily unavailable",
                    "The database cannot be reached right now. Please try again in a few seconds.");
        }
        String refusedValue = DatabaseFailures.refusedValue(e);
        if (refusedValue != null) {
            // The statement failed as a whole, so nothing was stored; the value was the client's.
            return error(400, "Invalid request body", refusedValue);
        }
        LOG.error("Unexpected failure", e);
        return error(500, "Internal server error", "An unexpected error occurred; it has been logged.");
    }
}
