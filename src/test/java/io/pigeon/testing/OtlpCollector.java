package io.pigeon.testing;

import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Predicate;

/**
 * An OpenTelemetry collector inside the test: an HTTP server taking OTLP's protobuf exports on {@code /v1/traces}, as
 * a real collector's OTLP/HTTP receiver does, decoded with OpenTelemetry's own protobuf classes. What a test asserts
 * is what a collector (and so Jaeger or Tempo) would be sent: span names, kinds, ids, parents, links, attributes.
 */
public final class OtlpCollector implements AutoCloseable {

    private static final HexFormat HEX = HexFormat.of();

    /** A span as exported: ids in lowercase hexadecimal (an absent parent is empty), attributes as text. */
    public record CollectedSpan(
            String service,
            String name,
            Span.SpanKind kind,
            String traceId,
            String spanId,
            String parentSpanId,
            Map<String, String> attributes,
            List<String> links) {

        public String attribute(String key) {
            return attributes.get(key);
        }
    }

    private final HttpServer server;
    private final List<CollectedSpan> spans = new ArrayList<>();
    private final List<String> refused = new ArrayList<>();

    /** Listens on 127.0.0.1:{@code port}, the port Pigeon's OTLP endpoint names. */
    public OtlpCollector(int port) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.setExecutor(Executors.newSingleThreadExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange;
                InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readAllBytes();
            String type = exchange.getRequestHeaders().getFirst("Content-Type");
            if (!"POST".equals(exchange.getRequestMethod())
                    || !exchange.getRequestURI().getPath().endsWith("/v1/traces")
                    || !"application/x-protobuf".equals(type)) {
                record(exchange.getRequestMethod() + " " + exchange.getRequestURI() + " " + type);
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            collect(ExportTraceServiceRequest.parseFrom(body));
            byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
            exchange.getResponseBody().write(answer);
        }
    }

    private synchronized void record(String request) {
        refused.add(request);
    }

    private synchronized void collect(ExportTraceServiceRequest request) {
        for (ResourceSpans resource : request.getResourceSpansList()) {
            String service = text(resource.getResource().getAttributesList()).get("service.name");
            for (ScopeSpans scope : resource.getScopeSpansList()) {
                for (Span span : scope.getSpansList()) {
                    List<String> links = new ArrayList<>();
                    span.getLinksList()
                            .forEach(link -> links.add(hex(link.getTraceId()) + "-" + hex(link.getSpanId())));
                    spans.add(new CollectedSpan(
                            service,
                            span.getName(),
                            span.getKind(),
                            hex(span.getTraceId()),
                            hex(span.getSpanId()),
                            hex(span.getParentSpanId()),
                            text(span.getAttributesList()),
                            links));
                }
            }
        }
    }

    private static Map<String, String> text(List<KeyValue> attributes) {
        Map<String, String> text = new LinkedHashMap<>();
        for (KeyValue attribute : attributes) {
            AnyValue value = attribute.getValue();
            text.put(
                    attribute.getKey(),
                    switch (value.getValueCase()) {
                        case STRING_VALUE -> value.getStringValue();
                        case INT_VALUE -> Long.toString(value.getIntValue());
                        case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
                        case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
                        default -> value.toString();
                    });
        }
        return text;
    }

    private static String hex(ByteString bytes) {
        return HEX.formatHex(bytes.toByteArray());
    }

    /** Every span received so far. */
    public synchronized List<CollectedSpan> spans() {
        return List.copyOf(spans);
    }

    /** The spans received so far that {@code test} accepts. */
    public List<CollectedSpan> spans(Predicate<CollectedSpan> test) {
        return spans().stream().filter(test).toList();
    }

    /** Requests that were not OTLP trace exports (none expected). */
    public synchronized List<String> refused() {
        return List.copyOf(refused);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
