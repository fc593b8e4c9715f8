package io.pigeon.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.json.StrictJson;
import io.pigeon.queue.QueueName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;

/**
 * SQS's {@code RedrivePolicy}: {@code {"deadLetterTargetArn": "arn:aws:sqs:<region>:<account>:<queue>",
 * "maxReceiveCount": 1-1000}}, the count given as a number or a string of digits as SDKs write it. The dead-letter
 * queue must be the caller's (same account; the region is not compared). Zaqar's {@code _dead_letter_queue} and
 * {@code _max_claim_count} hold it.
 */
record RedrivePolicy(QueueName queue, int maxReceiveCount) {

    static final int MAX_RECEIVE_COUNT = 1000;

    /** The policy {@code value} sets; null for the empty value, which removes the policy. */
    static RedrivePolicy read(String value, String account) {
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
            if (!name.equals("deadLetterTargetArn") && !name.equals("maxReceiveCount")) {
                throw invalid("unknown member " + Printable.of(name) + ".");
            }
        }
        JsonNode target = policy.get("deadLetterTargetArn");
        if (target == null || !target.isTextual()) {
            throw invalid("deadLetterTargetArn must be the ARN of a queue.");
        }
        String[] arn = QueueAttributes.readArn(target.textValue());
        if (arn == null) {
            throw invalid("deadLetterTargetArn " + Printable.of(target.textValue()) + " is not the ARN of a queue.");
        }
        if (!arn[0].equals(account)) {
            throw invalid("the dead-letter queue must be a queue of the same account.");
        }
        return new RedrivePolicy(QueueName.stored(arn[1]), count(policy.get("maxReceiveCount")));
    }

    /** The policy as GetQueueAttributes shows it. */
    String text(String targetArn) {
        ObjectNode shown = JsonNodeFactory.instance.objectNode();
        shown.put("deadLetterTargetArn", targetArn);
        shown.put("maxReceiveCount", maxReceiveCount);
        return shown.toString();
    }

    private static int count(JsonNode count) {
        String text = count == null
                ? null
                : count.isIntegralNumber() ? count.asText() : count.isTextual() ? count.textValue() : null;
        if (text == null
                || !text.matches("[0-9]{1,4}")
                || Integer.parseInt(text) < 1
                || Integer.parseInt(text) > MAX_RECEIVE_COUNT) {
            throw invalid("maxReceiveCount must be an integer from 1 to " + MAX_RECEIVE_COUNT + ".");
        }
        return Integer.parseInt(text);
    }

    private static SqsRefusal invalid(String reason) {
        return SqsRefusal.invalidAttributeValue("RedrivePolicy", reason);
    }
}
