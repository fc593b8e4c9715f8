package io.pigeon.observability;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The spans Pigeon makes itself, beside the HTTP and gRPC server spans Quarkus makes (docs/operations.md, Tracing;
 * decision 0022): one per messaging operation (a post, a claim, a delete...), named and attributed by OpenTelemetry's
 * messaging conventions, as a child of the request's span; and a server span per websocket frame, which Quarkus does
 * not make. With tracing off (no OTLP endpoint, {@link TracingSwitch}) every method hands back the work it was given
 * untouched: a request pays a field read, no span, no attribute, no string.
 */
@ApplicationScoped
public class MessagingSpans {

    public static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    public static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    public static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    public static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    public static final AttributeKey<Long> BATCH_COUNT = AttributeKey.longKey("messaging.batch.message_count");
    public static final AttributeKey<String> PROJECT = AttributeKey.stringKey("pigeon.project");

    /** The value of {@code messaging.system}: the conventions let a system not in their list name itself. */
    public static final String SYSTEM_NAME = "pigeon";

    private final boolean on;
    private final Tracer tracer;

    MessagingSpans(OpenTelemetry openTelemetry, @ConfigProperty(name = TracingSwitch.SDK_DISABLED) boolean disabled) {
        this.on = !disabled;
        this.tracer = openTelemetry.getTracer("io.pigeon");
    }

    /** Whether spans are made and exported (an OTLP endpoint is configured). */
    public boolean on() {
        return on;
    }

    /** {@code work} in a span of {@code operation} on a queue, counting {@code count} messages. */
    public <T> Uni<T> around(MessagingOperation operation, String project, String queue, int count, Uni<T> work) {
        return on ? traced(operation, project, queue, count, work, ignored -> -1) : work;
    }

    /** {@code work} in a span of {@code operation} on a queue, counting the messages its outcome holds. */
    public <T> Uni<T> around(
            MessagingOperation operation, String project, String queue, Uni<T> work, ToIntFunction<T> count) {
        return on ? traced(operation, project, queue, -1, work, count) : work;
    }

    /**
     * {@code work} in a consumer span of {@code operation} on a queue, counting the messages its outcome holds and
     * linking to the span that produced each ({@code producers}: the W3C {@code traceparent} each taken message carries,
     * null for one that carries none), as the messaging conventions link a batch receive to its messages' creation.
     */
    public <T> Uni<T> consuming(
            MessagingOperation operation,
            String project,
            String queue,
            Uni<T> work,
            ToIntFunction<T> counted,
            Function<T, List<String>> producers) {
        if (!on) {
            return work;
        }
        Span span = started(operation, project, queue, -1);
        return ended(span, -1, work.invoke(taken -> linked(span, producers.apply(taken))), counted);
    }

    /** Links {@code span} to each valid producer context among {@code producers} (W3C traceparents, nulls skipped). */
    private static void linked(Span span, List<String> producers) {
        // Messages of one post share their producer: one link to it says as much as one per message.
        for (String producer : new LinkedHashSet<>(producers)) {
            SpanContext context = remote(producer);
            if (context != null) {
                span.addLink(context);
            }
        }
    }

    /**
     * {@code work} in a producer span of {@code operation} on a queue, counting {@code count} messages: {@code work} is
     * given the span's W3C {@code traceparent}, the context the messages it stores carry, or null when there is no
     * span to carry (tracing off, or the span not sampled: then a message carries its caller's context, if any).
     */
    public <T> Uni<T> producing(
            MessagingOperation operation, String project, String queue, int count, Function<String, Uni<T>> work) {
        if (!on) {
            return work.apply(null);
        }
        Span span = started(operation, project, queue, count);
        SpanContext context = span.getSpanContext();
        String producer = context.isSampled() ? traceparentOf(context) : null;
        return ended(span, count, madeIn(span, () -> work.apply(producer)), ignored -> -1);
    }

    /**
     * A delivery's call (a webhook's or a mail) in a client span {@code deliver}, a child of the context the notified
     * message carries ({@code traceparent}, null or invalid: a trace of its own): {@code call} is given the
     * {@code traceparent} to send, the span's when it is sampled, else the message's as stored. {@code failure} names
     * what went wrong in an outcome, null when it was delivered (or put off).
     */
    public <T> Uni<T> delivering(
            String project, String traceparent, Function<String, Uni<T>> call, Function<T, String> failure) {
        if (!on) {
            return call.apply(traceparent);
        }
        SpanContext message = remote(traceparent);
        // No queue: a delivery of the delayed-dispatch API has none, so the span is named by its operation alone.
        Span span = builder(MessagingOperation.DELIVER, project, null)
                .setParent(message == null ? Context.root() : Context.root().with(Span.wrap(message)))
                .startSpan();
        String sent = span.getSpanContext().isSampled() ? traceparentOf(span.getSpanContext()) : traceparent;
        return madeIn(span, () -> call.apply(sent))
                .onItemOrFailure()
                .invoke((outcome, thrown) -> {
                    String failed = thrown == null ? failure.apply(outcome) : null;
                    if (failed != null) {
                        span.setStatus(StatusCode.ERROR, failed);
                    }
                    end(span, thrown);
                })
                .onCancellation()
                .invoke(span::end);
    }

    /**
     * A server span for work that no HTTP or gRPC span covers (a websocket frame): {@code work} is made with the span
     * current, so that the spans of the operations it calls are its children.
     */
    public <T> Uni<T> serve(String name, Supplier<Uni<? extends T>> work) {
        if (!on) {
            return Uni.createFrom().deferred(work);
        }
        return Uni.createFrom().deferred(() -> {
            Span span = tracer.spanBuilder(name)
                    .setSpanKind(SpanKind.SERVER)
                    .setAttribute(SYSTEM, SYSTEM_NAME)
                    .startSpan();
            Uni<? extends T> made;
            try (Scope ignored = span.makeCurrent()) {
                made = work.get();
            } catch (RuntimeException e) {
                end(span, e);
                throw e;
            }
            return made.onItemOrFailure()
                    .invoke((item, failure) -> end(span, failure))
                    .onCancellation()
                    .invoke(span::end);
        });
    }

    private <T> Uni<T> traced(
            MessagingOperation operation,
            String project,
            String queue,
            int count,
            Uni<T> work,
            ToIntFunction<T> counted) {
        return ended(started(operation, project, queue, count), count, work, counted);
    }

    private Span started(MessagingOperation operation, String project, String queue, int count) {
        Span span =
                builder(operation, project, queue).setParent(Context.current()).startSpan();
        if (count >= 0) {
            span.setAttribute(BATCH_COUNT, count);
        }
        return span;
    }

    /**
     * A span of {@code operation}, named and attributed by the messaging conventions: {@code <operation> <queue>}, or
     * the operation alone when there is no queue ({@code queue} null).
     */
    private SpanBuilder builder(MessagingOperation operation, String project, String queue) {
        SpanBuilder builder = tracer.spanBuilder(
                        queue == null ? operation.operationName() : operation.operationName() + " " + queue)
                .setSpanKind(operation.kind())
                .setAttribute(SYSTEM, SYSTEM_NAME)
                .setAttribute(OPERATION_TYPE, operation.operationType())
                .setAttribute(OPERATION_NAME, operation.operationName())
                .setAttribute(PROJECT, project);
        return queue == null ? builder : builder.setAttribute(DESTINATION, queue);
    }

    /** The work {@code make} makes; when making it throws, {@code span} ends with the failure first. */
    private static <T> Uni<T> madeIn(Span span, Supplier<Uni<T>> make) {
        try {
            return make.get();
        } catch (RuntimeException e) {
            end(span, e);
            throw e;
        }
    }

    /** {@code work}, ending {@code span} when it ends, with the count of messages its outcome holds if not known. */
    private static <T> Uni<T> ended(Span span, int count, Uni<T> work, ToIntFunction<T> counted) {
        return work.onItemOrFailure()
                .invoke((item, failure) -> {
                    if (failure == null && count < 0) {
                        int taken = counted.applyAsInt(item);
                        if (taken >= 0) {
                            span.setAttribute(BATCH_COUNT, taken);
                        }
                    }
                    end(span, failure);
                })
                .onCancellation()
                .invoke(span::end);
    }

    /** The context a stored W3C {@code traceparent} names (as stored: version 00, 55 characters), null if none. */
    private static SpanContext remote(String traceparent) {
        if (traceparent == null || traceparent.length() != 55) {
            return null;
        }
        SpanContext context = SpanContext.createFromRemoteParent(
                traceparent.substring(3, 35),
                traceparent.substring(36, 52),
                TraceFlags.fromHex(traceparent, 53),
                TraceState.getDefault());
        return context.isValid() ? context : null;
    }

    private static String traceparentOf(SpanContext context) {
        return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-"
                + context.getTraceFlags().asHex();
    }

    /** Ends {@code span}, with the status error and the exception when {@code failure} is one. */
    static void end(Span span, Throwable failure) {
        if (failure != null) {
            span.setStatus(StatusCode.ERROR);
            span.recordException(failure);
        }
        span.end();
    }
}
