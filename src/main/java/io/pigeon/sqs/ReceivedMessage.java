package io.pigeon.sqs;

import java.util.Map;

/**
 * A message as ReceiveMessage answers it: its id, the receipt handle of this receive, its body (SQS's reading of the
 * stored body, see {@link SqsBodies}) and digest, the system attributes asked for (name to text, as SQS writes them:
 * {@code ApproximateReceiveCount}, timestamps in epoch milliseconds, ...), and the message attributes asked for with
 * their digest (null when none is returned).
 */
public record ReceivedMessage(
        String messageId,
        String receiptHandle,
        String body,
        String md5OfBody,
        Map<String, String> attributes,
        MessageAttributes messageAttributes,
        String md5OfMessageAttributes) {}
