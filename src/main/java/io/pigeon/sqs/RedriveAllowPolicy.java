package io.pigeon.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.json.StrictJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Set;

/**
 * SQS's {@code RedriveAllowPolicy}: {@code {"redrivePermission": "allowAll" | "denyAll" | "byQueue",
 * "sourceQueueArns": [1 to 10 ARNs, with byQueue only]}}, checked to SQS's bounds and kept as the JSON object it is.
 * Pigeon keeps and shows it but does not enforce it (a redrive policy naming the queue is not refused by it).
 */
final class RedriveAllowPolicy {

    static final int MAX_SOURCE_QUEUES = 10;
    private static final Set<String> PERMISSIONS = Set.of("allowAll", "denyAll", "byQueue");

    private RedriveAllowPolicy() {}

    /** The policy {@code value} sets, as stored; null for the empty value, which removes it. */
    static ObjectNode read(String value) {
        if (value.isEmpty()) {
            return null;
        }
        JsonNode policy;
        try {
            policy = StrictJson.read(value.getBytes(StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            throw invalid("must be a JSON object.");
        }
        if (policy == null || !policy.isObject()) {
            throw invalid("must be a JSON object.");
        }
        for (Iterator<String> names = policy.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals("redrivePermission") && !name.equals("sourceQueueArns")) {
                throw invalid("unknown member " + Printable.of(name) + ".");
            }
        }
        JsonNode permission = policy.get("redrivePermission");
        if (permission == null || !permission.isTextual() || !PERMISSIONS.contains(permission.textValue())) {
            throw invalid("redrivePermission must be allowAll, denyAll or byQueue.");
        }
        JsonNode sources = policy.get("sourceQueueArns");
        boolean byQueue = permission.textValue().equals("byQueue");
        ObjectNode kept = JsonNodeFactory.instance.objectNode();
        kept.put("redrivePermission", permission.textValue());
        if (!byQueue) {
            if (sources != null) {
                throw invalid("sourceQueueArns may be given only with redrivePermission byQueue.");
            }
            return kept;
        }
        if (sources == null || !sources.isArray() || sources.isEmpty() || sources.size() > MAX_SOURCE_QUEUES) {
            throw invalid("byQueue needs sourceQueueArns: 1 to " + MAX_SOURCE_QUEUES + " queue ARNs.");
        }
        for (JsonNode source : sources) {
            if (!source.isTextual() || QueueAttributes.readArn(source.textValue()) == null) {
                throw invalid("every member of sourceQueueArns must be the ARN of a queue.");
            }
        }
        kept.set("sourceQueueArns", sources);
        return kept;
    }

    private static SqsRefusal invalid(String reason) {
        return SqsRefusal.invalidAttributeValue("RedriveAllowPolicy", reason);
    }
}
