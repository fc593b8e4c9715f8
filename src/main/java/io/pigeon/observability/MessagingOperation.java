package io.pigeon.observability;

import io.opentelemetry.api.trace.SpanKind;

/**
 * What a request does to messages, as OpenTelemetry's messaging conventions name it: the span's name starts with
 * {@code messaging.operation.name}, and {@code messaging.operation.type} is one of the convention's types. The kind
 * follows decision 0022: a post is the producer side (its span is the context stored with each message), a take of
 * messages the consumer side (its span links to each message's producer), the rest is Pigeon's own work.
 */
public enum MessagingOperation {
    POST("post", "send", SpanKind.PRODUCER),
    SEND("send", "send", SpanKind.PRODUCER),
    CLAIM("claim", "receive", SpanKind.CONSUMER),
    POP("pop", "receive", SpanKind.CONSUMER),
    RECEIVE("receive", "receive", SpanKind.CONSUMER),
    DELETE("delete", "settle", SpanKind.INTERNAL),
    RELEASE("release", "settle", SpanKind.INTERNAL),
    CHANGE_VISIBILITY("change_visibility", "settle", SpanKind.INTERNAL),
    DELIVER("deliver", "process", SpanKind.CLIENT);

    private final String operationName;
    private final String operationType;
    private final SpanKind kind;

    MessagingOperation(String operationName, String operationType, SpanKind kind) {
        this.operationName = operationName;
        this.operationType = operationType;
        this.kind = kind;
    }

    public String operationName() {
        return operationName;
    }

    public String operationType() {
        return operationType;
    }

    SpanKind kind() {
        return kind;
    }
}
