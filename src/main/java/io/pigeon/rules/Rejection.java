package io.pigeon.rules;

/**
 * A request the domain refuses: why (a {@link Reason}) and what the client should know (the description,
 * naming the field and the bound). It says nothing of HTTP: the web layer maps each reason to a status and a
 * title in one table ({@code io.pigeon.api.Rejections}).
 */
public class Rejection extends RuntimeException {

    /** Why a request is refused. */
    public enum Reason {
        /** The request breaks a rule of the API (a value out of bounds, a missing or malformed part). */
        INVALID_REQUEST,
        /** The body cannot be read as the document it must be. */
        INVALID_BODY,
        /** A query parameter is malformed or out of bounds. */
        INVALID_PARAMETER,
        /** A required query parameter is missing. */
        MISSING_PARAMETER,
        /** A queue name or project id is malformed. */
        INVALID_IDENTIFICATION,
        /** A topic name is malformed. */
        INVALID_TOPIC_IDENTIFICATION,
        /** A pool or flavor cannot be created as asked (a flavor naming a pool that does not exist). */
        UNABLE_TO_CREATE,
        /** A pool still holds queues, or is the last pool of its flavor. */
        IN_USE,
        /** A call that must name its project does not. */
        PROJECT_MISSING,
        /** What the request names does not exist. */
        NOT_FOUND,
        /** The request contradicts the current state (replacing what is absent). */
        CONFLICT,
        /** What the request would create exists already. */
        DUPLICATE,
        /** A claimed message may be deleted only with its claim's id. */
        CLAIM_REQUIRED,
        /** The claim id given is not the one that holds the message. */
        CLAIM_MISMATCH,
        /** The caller may not act for that project. */
        FORBIDDEN,
        /** A dependency cannot answer now; the same request may succeed later. */
        UNAVAILABLE,
        /** A count the caller must lower first (queues of a project, subscriptions of a queue) is at its quota. */
        QUOTA_REACHED,
        /** A backlog (messages, pending deliveries) is over its quota; it drains, and the request may succeed later. */
        QUOTA_BACKLOG,
        /** An idempotency key, still remembered, sent again with another request than the one it was first sent with. */
        KEY_REUSED
    }

    private final Reason reason;

    public Rejection(Reason reason, String description) {
        super(description, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    public String description() {
        return getMessage();
    }

    public static Rejection invalidRequest(String description) {
        return new Rejection(Reason.INVALID_REQUEST, description);
    }

    public static Rejection invalidBody(String description) {
        return new Rejection(Reason.INVALID_BODY, description);
    }

    /** A malformed parameter, in the words Zaqar uses: the parameter's name, then what it must be. */
    public static Rejection invalidParameter(String name, String expectation) {
        return new Rejection(Reason.INVALID_PARAMETER, "The \"" + name + "\" parameter is invalid. " + expectation);
    }

    public static Rejection notFound(String description) {
        return new Rejection(Reason.NOT_FOUND, description);
    }
}
