package io.pigeon.observability;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
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
        Span span = tracer.spanBuilder(operation.operationName() + " " + queue)
                .setParent(Context.current())
                .setSpanKind(operation.kind())
                .setAttribute(SYSTEM, SYSTEM_NAME)
                .setAttribute(DESTINATION, queue)
                .setAttribute(OPERATION_TYPE, operation.operationType())
                .setAttribute(OPERATION_NAME, operation.operationName())
                .setAttribute(PROJECT, project)
                .startSpan();
        if (count >= 0) {
            span.setAttribute(BATCH_COUNT, count);
        }
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

    private static void end(Span span, Throwable failure) {
        if (failure != null) {
            span.setStatus(StatusCode.ERROR);
            span.recordException(failure);
        }
        span.end();
    }
}
