package io.pigeon.api;

import io.pigeon.rules.Rejection;
import jakarta.ws.rs.core.Response;

/**
 * The one table from the domain's reasons for refusing a request to HTTP: status and Zaqar's title. The switch
 * is exhaustive, so a new reason does not compile until it has its answer here.
 */
public final class Rejections {

    private Rejections() {}

    /** The status and title a client sees for a reason. */
    public record Answer(int status, String title) {}

    public static Answer answer(Rejection.Reason reason) {
        return switch (reason) {
            case INVALID_REQUEST -> new Answer(400, "Invalid API request");
            case INVALID_BODY -> new Answer(400, "Invalid request body");
            case INVALID_PARAMETER -> new Answer(400, "Invalid parameter");
            case MISSING_PARAMETER -> new Answer(400, "Missing parameter");
            case INVALID_IDENTIFICATION -> new Answer(400, "Invalid queue identification");
            case INVALID_TOPIC_IDENTIFICATION -> new Answer(400, "Invalid topic identification");
            case UNABLE_TO_CREATE -> new Answer(400, "Unable to create");
            case IN_USE -> new Answer(403, "Unable to delete");
            case PROJECT_MISSING -> new Answer(400, "Project-Id Missing");
            case NOT_FOUND -> new Answer(404, "Not found");
            case CONFLICT -> new Answer(409, "Resource conflict");
            case DUPLICATE -> new Answer(409, "Conflict");
            case CLAIM_REQUIRED -> new Answer(403, "Unable to delete");
            case CLAIM_MISMATCH -> new Answer(400, "Unable to delete");
            case FORBIDDEN -> new Answer(403, "Forbidden");
            case UNAVAILABLE -> new Answer(503, "Service temporarily unavailable");
            case QUOTA_REACHED -> new Answer(403, "Quota exceeded");
            case QUOTA_BACKLOG -> new Answer(429, "Quota exceeded");
                // The IETF Idempotency-Key draft's answer to a key reused with another payload.
            case KEY_REUSED -> new Answer(422, "Idempotency key reused");
        };
    }

    /** The error-document response for a rejection. */
    public static Response toResponse(Rejection rejection) {
        Answer answer = answer(rejection.reason());
        Response response = ErrorMappers.error(answer.status(), answer.title(), rejection.description());
        // A backlog is counted again every pigeon.quotas.check-interval (30 s by default): try after that.
        return rejection.reason() == Rejection.Reason.QUOTA_BACKLOG
                ? Response.fromResponse(response).header("Retry-After", "30").build()
                : response;
    }

    /** The error-document response for a failure the API describes itself (a rejection or an HTTP-level one). */
    public static Response toResponse(RuntimeException described) {
        return described instanceof Rejection rejection
                ? toResponse(rejection)
                : ((ApiException) described).toResponse();
    }
}
