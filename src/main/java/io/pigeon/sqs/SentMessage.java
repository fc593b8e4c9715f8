package io.pigeon.sqs;

/**
 * What SendMessage answers for a stored message: its id (Zaqar's id of the same row) and the digests the SDKs check;
 * {@code md5OfMessageAttributes} and {@code md5OfMessageSystemAttributes} are null when the message has none; the
 * {@code sequenceNumber} is a FIFO queue's only ({@link SequenceNumbers}).
 */
public record SentMessage(
        String messageId,
        String md5OfMessageBody,
        String md5OfMessageAttributes,
        String md5OfMessageSystemAttributes,
        String sequenceNumber) {

    public SentMessage(
            String messageId,
            String md5OfMessageBody,
            String md5OfMessageAttributes,
            String md5OfMessageSystemAttributes) {
        this(messageId, md5OfMessageBody, md5OfMessageAttributes, md5OfMessageSystemAttributes, null);
    }
}
