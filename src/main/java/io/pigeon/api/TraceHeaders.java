package io.pigeon.api;

import io.pigeon.message.NewMessage;
import io.pigeon.message.TraceContext;
import io.vertx.core.http.HttpServerRequest;
import java.util.List;

/**
 * The W3C trace context a post's request carries in its {@code traceparent} and {@code tracestate} headers, which
 * Pigeon stores with each message the post creates (docs/operations.md, Tracing; decision 0022). W3C's rules for
 * receiving them: a request with more than one {@code traceparent} has none; several {@code tracestate} lines are one
 * list, joined with commas. What is kept, and within which bounds, is {@link TraceContext}'s to say.
 */
public final class TraceHeaders {

    public static final String PARENT = "traceparent";
    public static final String STATE = "tracestate";

    private TraceHeaders() {}

    /** The request's trace context, null when it has no valid {@code traceparent}. */
    public static TraceContext of(HttpServerRequest request) {
        List<String> parents = request.headers().getAll(PARENT);
        if (parents.size() != 1) {
            return null;
        }
        List<String> states = request.headers().getAll(STATE);
        return TraceContext.of(parents.get(0), states.isEmpty() ? null : String.join(",", states));
    }

    /** {@code messages}, each carrying the request's trace context (as they are when it has none). */
    public static List<NewMessage> carriedBy(HttpServerRequest request, List<NewMessage> messages) {
        TraceContext trace = of(request);
        return trace == null
                ? messages
                : messages.stream().map(message -> message.withTrace(trace)).toList();
    }
}
