package io.pigeon.sqs;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * The digests an SQS answer carries and the SDKs check (aws-sdk-java-v2's MessageMD5ChecksumInterceptor fails a call
 * whose digest differs): {@code MD5OfMessageBody}, the MD5 of the body's UTF-8 bytes; {@code MD5OfMessageAttributes}
 * and {@code MD5OfMessageSystemAttributes}, the MD5 of, for each attribute in the order of names: the name, the data
 * type (each as a 4-byte big-endian length and its UTF-8 bytes), the transport byte (1 for a string value, 2 for
 * bytes) and the value (length and bytes). Lower-case hexadecimal, as AWS writes them.
 */
public final class MessageDigests {

    private static final byte STRING_TRANSPORT = 1;
    private static final byte BINARY_TRANSPORT = 2;

    private MessageDigests() {}

    public static String ofBody(String body) {
        return HexFormat.of().formatHex(md5().digest(body.getBytes(StandardCharsets.UTF_8)));
    }

    /** The digest of the attributes; null when there are none (SQS then sends no digest). */
    public static String ofAttributes(MessageAttributes attributes) {
        if (attributes.isEmpty()) {
            return null;
        }
        MessageDigest md5 = md5();
        for (Map.Entry<String, AttributeValue> entry : attributes.byName().entrySet()) {
            AttributeValue value = entry.getValue();
            withLength(md5, entry.getKey().getBytes(StandardCharsets.UTF_8));
            withLength(md5, value.dataType().getBytes(StandardCharsets.UTF_8));
            if (value.isBinary()) {
                md5.update(BINARY_TRANSPORT);
                withLength(md5, value.binaryValue());
            } else {
                md5.update(STRING_TRANSPORT);
                withLength(md5, value.stringValue().getBytes(StandardCharsets.UTF_8));
            }
        }
        return HexFormat.of().formatHex(md5.digest());
    }

    private static void withLength(MessageDigest md5, byte[] bytes) {
        md5.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
        md5.update(bytes);
    }

    private static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is not available", e);
        }
    }
}
