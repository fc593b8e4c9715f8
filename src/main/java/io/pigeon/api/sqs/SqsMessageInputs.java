package io.pigeon.api.sqs;

import io.pigeon.sqs.AttributeValue;
import io.pigeon.sqs.MessageGroupRules;
import io.pigeon.sqs.OutgoingMessage;
import io.pigeon.sqs.ReceiveRequest;
import io.pigeon.sqs.SqsRefusal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the message actions' inputs by AWS's member names, the same for a whole request and for one batch entry: a
 * message to send (body, delay, {@code MessageAttributes} / {@code MessageAttribute.N.Name} and
 * {@code .Value.StringValue|BinaryValue|DataType}, {@code MessageSystemAttributes} / {@code MessageSystemAttribute.N.*})
 * and a receive ({@code AttributeNames} / {@code AttributeName.N}, {@code MessageSystemAttributeNames} / {@code
 * MessageSystemAttributeName.N}, {@code MessageAttributeNames} / {@code MessageAttributeName.N}). Binary values are
 * base64 on both wires. Only the wire's shape is checked here; the rules (counts, names, types) are the domain's.
 */
final class SqsMessageInputs {

    private SqsMessageInputs() {}

    /** A message to send, from SendMessage's input or one SendMessageBatch entry. */
    static OutgoingMessage outgoing(SqsParameters in) {
        return new OutgoingMessage(
                in.string("MessageBody").orElse(null),
                attributes(in, "MessageAttributes", "MessageAttribute"),
                attributes(in, "MessageSystemAttributes", "MessageSystemAttribute"),
                in.integer("DelaySeconds").orElse(null),
                in.string("MessageGroupId").orElse(null),
                in.string("MessageDeduplicationId").orElse(null));
    }

    /** A receive as asked; the system attribute names of both parameters together. */
    static ReceiveRequest receive(SqsParameters in) {
        String attemptId = in.string("ReceiveRequestAttemptId").orElse(null);
        MessageGroupRules.checkAttemptId(attemptId);
        List<String> older = in.strings("AttributeNames", "AttributeName");
        List<String> newer = in.strings("MessageSystemAttributeNames", "MessageSystemAttributeName");
        ReceiveRequest.checkNames(older, newer);
        List<String> system = new ArrayList<>(older);
        system.addAll(newer);
        return new ReceiveRequest(
                in.integer("MaxNumberOfMessages").orElse(null),
                in.integer("VisibilityTimeout").orElse(null),
                in.integer("WaitTimeSeconds").orElse(null),
                system,
                in.strings("MessageAttributeNames", "MessageAttributeName"),
                attemptId);
    }

    private static Map<String, AttributeValue> attributes(SqsParameters in, String jsonName, String queryEntry) {
        Map<String, SqsParameters> given = in.structureMap(jsonName, queryEntry, "Name", "Value");
        Map<String, AttributeValue> values = new LinkedHashMap<>();
        given.forEach((name, value) -> values.put(name, value(jsonName, name, value)));
        return values;
    }

    private static AttributeValue value(String parameter, String name, SqsParameters value) {
        String binary = value.string("BinaryValue").orElse(null);
        return new AttributeValue(
                value.string("DataType").orElse(null),
                value.string("StringValue").orElse(null),
                binary == null ? null : decoded(parameter, name, binary));
    }

    private static byte[] decoded(String parameter, String name, String base64) {
        try {
            // Line breaks are allowed (some encoders wrap); any other character outside the alphabet is refused.
            return Base64.getDecoder().decode(base64.replaceAll("[\\r\\n]", ""));
        } catch (IllegalArgumentException e) {
            throw SqsRefusal.invalidParameter(
                    parameter + "." + name + ".BinaryValue", base64, "it is not base64 (RFC 4648).");
        }
    }
}
