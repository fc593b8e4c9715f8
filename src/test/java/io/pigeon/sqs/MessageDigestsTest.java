package io.pigeon.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.sqs.internal.MessageMD5ChecksumInterceptor;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * The digests are AWS's byte for byte: each is compared with what the real SDK (aws-sdk-java-v2's own
 * MessageMD5ChecksumInterceptor, whose check fails a call on a mismatch) computes for the same message, with every
 * kind of attribute, custom types, non-ASCII names' neighbours and values, and bodies beyond the BMP.
 */
class MessageDigestsTest {

    private static String sdkBodyDigest(String body) throws Exception {
        Method method = MessageMD5ChecksumInterceptor.class.getDeclaredMethod("calculateMessageBodyMd5", String.class);
        method.setAccessible(true);
        return (String) method.invoke(null, body);
    }

    private static String sdkAttributesDigest(Map<String, MessageAttributeValue> attributes) throws Exception {
        Method method =
                MessageMD5ChecksumInterceptor.class.getDeclaredMethod("calculateMessageAttributesMd5", Map.class);
        method.setAccessible(true);
        return (String) method.invoke(null, attributes);
    }

    private static MessageAttributeValue sdkValue(AttributeValue value) {
        MessageAttributeValue.Builder builder = MessageAttributeValue.builder().dataType(value.dataType());
        return value.isBinary()
                ? builder.binaryValue(SdkBytes.fromByteArray(value.binaryValue()))
                        .build()
                : builder.stringValue(value.stringValue()).build();
    }

    private static void assertSameDigestAsTheSdk(Map<String, AttributeValue> sent) throws Exception {
        Map<String, MessageAttributeValue> sdk = new HashMap<>();
        sent.forEach((name, value) -> sdk.put(name, sdkValue(value)));
        assertEquals(sdkAttributesDigest(sdk), MessageDigests.ofAttributes(MessageAttributes.of(sent)));
    }

    @Test
    void bodyDigestsAreTheSdks() throws Exception {
        for (String body : new String[] {
            "hello", "{\"a\": 1}", "grüße, 日本語, emoji \uD83D\uDE00", "tab\tnew\nline\rcr", "x".repeat(100_000)
        }) {
            assertEquals(
                    sdkBodyDigest(body), MessageDigests.ofBody(body), body.substring(0, Math.min(20, body.length())));
        }
        assertEquals("5d41402abc4b2a76b9719d911017c592", MessageDigests.ofBody("hello"));
    }

    @Test
    void attributeDigestsAreTheSdks() throws Exception {
        Map<String, AttributeValue> sent = new LinkedHashMap<>();
        sent.put("zeta", AttributeValue.string("String", "last by name"));
        sent.put("Alpha", AttributeValue.string("String", "grüße 日本 \uD83D\uDE00"));
        sent.put("count", AttributeValue.string("Number", "42"));
        sent.put("ratio", AttributeValue.string("Number.float", "-1.5E-10"));
        sent.put("blob", AttributeValue.binary("Binary", new byte[] {0, 1, 2, (byte) 0xff, 0x7f}));
        sent.put("image", AttributeValue.binary("Binary.png", "png bytes".getBytes(StandardCharsets.UTF_8)));
        sent.put("with.dots_and-dashes", AttributeValue.string("String.custom-label", "v"));
        assertSameDigestAsTheSdk(sent);
        assertSameDigestAsTheSdk(Map.of("one", AttributeValue.string("String", "1")));
        assertSameDigestAsTheSdk(Map.of("a", AttributeValue.string("String", "x".repeat(5000))));
    }

    @Test
    void noAttributesGiveNoDigest() {
        assertNull(MessageDigests.ofAttributes(MessageAttributes.of(Map.of())));
        assertNull(MessageDigests.ofAttributes(MessageAttributes.of(null)));
    }

    @Test
    void systemAttributeDigestFollowsTheSameRule() throws Exception {
        MessageAttributes system = MessageAttributes.systemAttributes(
                Map.of("AWSTraceHeader", AttributeValue.string("String", "Root=1-5759e988-bd862e3fe1be46a994272793")));
        assertEquals(
                sdkAttributesDigest(Map.of(
                        "AWSTraceHeader",
                        MessageAttributeValue.builder()
                                .dataType("String")
                                .stringValue("Root=1-5759e988-bd862e3fe1be46a994272793")
                                .build())),
                MessageDigests.ofAttributes(system));
        SqsRefusal other = assertThrows(
                SqsRefusal.class,
                () -> MessageAttributes.systemAttributes(Map.of("Other", AttributeValue.string("String", "x"))));
        assertEquals(SqsRefusal.Reason.INVALID_PARAMETER_VALUE, other.reason());
    }
}
