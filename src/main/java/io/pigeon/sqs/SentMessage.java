package io.pigeon.sqs;

/**
 * What SendMessage answers for a stored message: its id (Zaqar's id of the same row) and the digests the SDKs check;
 * {@code md5OfMessageAttributes} and {@code md5OfMessageSystemAttributes} are null when the message has none.
 */
public record SentMessage(
        String messageId,
        String md5OfMessageBody,
        String md5OfMessageAttributes,
        String md5OfMessageSystemAttributes) {}
