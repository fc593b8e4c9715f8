package io.pigeon.observability;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.pigeon.storage.StatementObserver;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.IntConsumer;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The observers of the shared statements ({@link io.pigeon.storage.Coalescer}): each counts the requests a statement of
 * its kind carried ({@code pigeon_statement_requests}) and, with tracing on, makes a client span per statement
 * (decision 0022): {@code <kind> statement}, with {@code db.system.name}, {@code db.operation.name} (the kind) and
 * {@code db.operation.batch.size} (the requests it carried), a child of the first sampled request's span and linked to
 * each sampled request's, since one statement serves requests of many traces (of many projects: its links name their
 * spans, and its batch size how many shared it, nothing of what they did). No SQL text and no parameters.
 */
@ApplicationScoped
public class StatementObservers {

    static final AttributeKey<String> DB_SYSTEM = AttributeKey.stringKey("db.system.name");
    static final AttributeKey<String> DB_OPERATION = AttributeKey.stringKey("db.operation.name");
    static final AttributeKey<Long> DB_BATCH_SIZE = AttributeKey.longKey("db.operation.batch.size");

    private final QueueMetrics metrics;
    private final boolean on;
    private final Tracer tracer;

    StatementObservers(
            QueueMetrics metrics,
            OpenTelemetry openTelemetry,
            @ConfigProperty(name = TracingSwitch.SDK_DISABLED) boolean disabled) {
        this.metrics = metrics;
        this.on = !disabled;
        this.tracer = openTelemetry.getTracer("io.pigeon");
    }

    /** The observer of the statements of {@code kind} (post, claim, fifo-claim, delete, receipt-delete). */
    public StatementObserver of(String kind) {
        IntConsumer requests = metrics.statementRequests(kind);
        if (!on) {
            return StatementObserver.counting(requests);
        }
        return new StatementObserver() {
            @Override
            public Object requester() {
                SpanContext current = Span.current().getSpanContext();
                return current.isValid() ? current : null;
            }

            @Override
            public <T> Uni<T> ran(List<Object> requesters, Uni<T> statement) {
                requests.accept(requesters.size());
                return Uni.createFrom().deferred(() -> {
                    Span span = started(kind, requesters);
                    return statement
                            .onItemOrFailure()
                            .invoke((item, failure) -> MessagingSpans.end(span, failure))
                            .onCancellation()
                            .invoke(span::end);
                });
            }
        };
    }

    /**
     * The statement's span: a child of the first request whose own span is sampled (its trace is the one recorded), linked
     * to every sampled request's span; when none is sampled, a child of the first, which the parent-based sampler then
     * leaves unrecorded as that request's own spans are.
     */
    private Span started(String kind, List<Object> requesters) {
        SpanContext parent = null;
        List<SpanContext> sampled = new ArrayList<>();
        for (Object requester : new LinkedHashSet<>(requesters)) {
            if (requester instanceof SpanContext context) {
                if (parent == null) {
                    parent = context;
                }
                if (context.isSampled()) {
                    sampled.add(context);
                }
            }
        }
        if (!sampled.isEmpty()) {
            parent = sampled.get(0);
        }
        var builder = tracer.spanBuilder(kind + " statement")
                .setParent(parent == null ? Context.root() : Context.root().with(Span.wrap(parent)))
                .setSpanKind(SpanKind.CLIENT)
                .setAttribute(DB_SYSTEM, "postgresql")
                .setAttribute(DB_OPERATION, kind)
                .setAttribute(DB_BATCH_SIZE, (long) requesters.size());
        // The parent too: a trace view shows a span's links, not which of its siblings' requests it also served.
        sampled.forEach(builder::addLink);
        return builder.startSpan();
    }
}
