package io.pigeon.sqs;

import io.pigeon.message.TraceContext;
import java.util.Locale;

/**
 * SQS's {@code AWSTraceHeader} and the W3C trace context a message carries (docs/api/sqs.md, decision 0022). SQS
 * stores and answers the attribute as sent, without checking its form (so does Pigeon: {@link MessageAttributes}
 * bounds it as any String attribute); Pigeon also reads an X-Ray header of the form
 * {@code Root=1-<8 hex>-<24 hex>;Parent=<16 hex>;Sampled=<0|1>} (fields in any order, others ignored) as the W3C
 * context the message carries, the trace id being the Root's 32 hexadecimal digits, so that a claim links to it and a
 * delivery sends it. A message posted through Zaqar with a {@code traceparent} answers an SQS receive asking for
 * {@code AWSTraceHeader} with its context in X-Ray's form.
 */
final class XRayTraceHeaders {

    private XRayTraceHeaders() {}

    /** The W3C context of an {@code AWSTraceHeader} (null: none), or null when it is not X-Ray's form. */
    static TraceContext context(AttributeValue attribute) {
        return attribute == null ? null : context(attribute.stringValue());
    }

    /** The W3C context of an X-Ray trace header, or null when it is not one (no Root of version 1, or no Parent). */
    static TraceContext context(String header) {
        if (header == null) {
            return null;
        }
        String root = null;
        String parent = null;
        String sampled = null;
        for (String field : header.split(";", -1)) {
            int equals = field.indexOf('=');
            if (equals < 0) {
                continue;
            }
            String name = field.substring(0, equals).strip();
            String value = field.substring(equals + 1).strip();
            switch (name) {
                case "Root" -> root = value;
                case "Parent" -> parent = value;
                case "Sampled" -> sampled = value;
                default -> {
                    // X-Ray's other fields (Lineage, Self, a caller's own) carry nothing W3C's context holds.
                }
            }
        }
        if (root == null || parent == null || root.length() != 35 || !root.startsWith("1-") || root.charAt(10) != '-') {
            return null;
        }
        String traceId = (root.substring(2, 10) + root.substring(11)).toLowerCase(Locale.ROOT);
        String flags = "1".equals(sampled) ? "01" : "00";
        return TraceContext.of("00-" + traceId + "-" + parent.toLowerCase(Locale.ROOT) + "-" + flags, null);
    }

    /** {@code context} as an X-Ray trace header. */
    static String header(TraceContext context) {
        String traceId = context.traceId();
        return "Root=1-" + traceId.substring(0, 8) + "-" + traceId.substring(8) + ";Parent=" + context.parentId()
                + ";Sampled=" + (context.sampled() ? "1" : "0");
    }
}
