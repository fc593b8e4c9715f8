package io.pigeon.message;

import java.util.List;

/**
 * A message to post: its lifetime and delay in seconds (null: the queue's defaults apply, v2), its body as compact
 * JSON text, its group (null: none; see {@link MessageGroups}), which a queue ordered by groups claims by, and the
 * trace context it carries (null: none; see {@link TraceContext}).
 */
public record NewMessage(Integer ttl, Integer delay, String body, String group, TraceContext trace) {

    /** A message without a group or a trace context. */
    public NewMessage(Integer ttl, Integer delay, String body) {
        this(ttl, delay, body, null, null);
    }

    /** A message without a trace context. */
    public NewMessage(Integer ttl, Integer delay, String body, String group) {
        this(ttl, delay, body, group, null);
    }

    /** The same message with another body (its sealed text), its group and trace context kept. */
    public NewMessage withBody(String text) {
        return new NewMessage(ttl, delay, text, group, trace);
    }

    /** The same message carrying {@code context} (null: none). */
    public NewMessage withTrace(TraceContext context) {
        return new NewMessage(ttl, delay, body, group, context);
    }

    /**
     * {@code messages} as a producer span stores them ({@code producer}, its {@code traceparent}; null: no span to
     * carry, then each keeps its caller's context): a message without a context, or with one of the producer's own
     * trace (the request's, which the span continues), carries the producer's, its {@code tracestate} kept; one of
     * another trace (an {@code AWSTraceHeader} of its own) keeps it, as SQS keeps the attribute.
     */
    public static List<NewMessage> producedBy(List<NewMessage> messages, String producer) {
        if (producer == null) {
            return messages;
        }
        TraceContext produced = TraceContext.stored(producer, null);
        return messages.stream()
                .map(message -> message.trace == null
                        ? message.withTrace(produced)
                        : message.trace.traceId().equals(produced.traceId())
                                ? message.withTrace(message.trace.withParent(producer))
                                : message)
                .toList();
    }

    /** Its {@code traceparent} as stored, null for none. */
    String traceparent() {
        return trace == null ? null : trace.traceparent();
    }

    /** Its {@code tracestate} as stored, null for none. */
    String tracestate() {
        return trace == null ? null : trace.tracestate();
    }
}
