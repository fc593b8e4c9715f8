package io.pigeon.api.sqs;

import io.pigeon.sqs.AttributeValue;
import io.pigeon.sqs.EntryOutcome;
import io.pigeon.sqs.MessageAttributes;
import io.pigeon.sqs.ReceivedMessage;
import io.pigeon.sqs.SentMessage;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The message actions' outputs in AWS's shapes, for {@link SqsWire} to write in either protocol: a sent message's id
 * and digests, a received message ({@code Message}: id, handle, body and digest, {@code Attribute} name/value pairs,
 * {@code MessageAttribute} structures with base64 binary values), and a batch's answer, each entry under {@code
 * Successful} ({@code <Action>ResultEntry} in XML) or {@code Failed} ({@code BatchResultErrorEntry}: Id, Code, Message,
 * SenderFault, with the error's query code as AWS writes it). A digest with nothing to digest is left out, as AWS does.
 */
final class SqsMessageViews {

    private SqsMessageViews() {}

    /** SendMessage's output, or the fields of a SendMessageBatch entry after its Id. */
    static SqsAnswer sent(SqsAnswer answer, SentMessage sent) {
        return answer.string("MessageId", sent.messageId())
                .string("MD5OfMessageBody", sent.md5OfMessageBody())
                .string("MD5OfMessageAttributes", sent.md5OfMessageAttributes())
                .string("MD5OfMessageSystemAttributes", sent.md5OfMessageSystemAttributes())
                .string("SequenceNumber", sent.sequenceNumber());
    }

    /** ReceiveMessage's output; no {@code Messages} member when none was received, as AWS answers an empty poll. */
    static SqsAnswer received(List<ReceivedMessage> messages) {
        List<SqsAnswer> shown = new ArrayList<>(messages.size());
        for (ReceivedMessage message : messages) {
            shown.add(message(message));
        }
        return SqsAnswer.result().structures("Messages", "Message", shown.isEmpty() ? null : shown);
    }

    private static SqsAnswer message(ReceivedMessage message) {
        MessageAttributes attributes = message.messageAttributes();
        Map<String, SqsAnswer> values = new LinkedHashMap<>();
        if (attributes != null) {
            attributes.byName().forEach((name, value) -> values.put(name, attributeValue(value)));
        }
        Map<String, String> system = message.attributes();
        return SqsAnswer.structure()
                .string("MessageId", message.messageId())
                .string("ReceiptHandle", message.receiptHandle())
                .string("MD5OfBody", message.md5OfBody())
                .string("Body", message.body())
                .entries("Attributes", "Attribute", "Name", "Value", system == null || system.isEmpty() ? null : system)
                .string("MD5OfMessageAttributes", message.md5OfMessageAttributes())
                .entries("MessageAttributes", "MessageAttribute", "Name", "Value", values.isEmpty() ? null : values);
    }

    private static SqsAnswer attributeValue(AttributeValue value) {
        return SqsAnswer.structure()
                .string("StringValue", value.stringValue())
                .string(
                        "BinaryValue",
                        value.binaryValue() == null ? null : Base64.getEncoder().encodeToString(value.binaryValue()))
                .string("DataType", value.dataType());
    }

    /**
     * A batch action's output: {@code Successful} and {@code Failed}, both always there in JSON (AWS's model requires
     * them); {@code successful} adds an entry's own fields after its Id.
     */
    static <T> SqsAnswer batch(String action, List<EntryOutcome<T>> outcomes, BiConsumer<SqsAnswer, T> successful) {
        List<SqsAnswer> succeeded = new ArrayList<>();
        List<SqsAnswer> failed = new ArrayList<>();
        for (EntryOutcome<T> outcome : outcomes) {
            if (outcome.successful()) {
                SqsAnswer entry = SqsAnswer.structure().string("Id", outcome.id());
                successful.accept(entry, outcome.result());
                succeeded.add(entry);
            } else {
                SqsErrors.Written written = SqsErrors.of(outcome.failure().reason());
                failed.add(SqsAnswer.structure()
                        .string("Id", outcome.id())
                        .bool("SenderFault", written.senderFault())
                        .string("Code", written.code())
                        .string("Message", SqsWire.message(outcome.failure())));
            }
        }
        return SqsAnswer.result()
                .structures("Successful", action + "ResultEntry", succeeded)
                .structures("Failed", "BatchResultErrorEntry", failed);
    }
}
