package io.pigeon.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** AWS's rules for message attributes and bodies, each refused with AWS's code and a message naming the rule. */
class MessageAttributesTest {

    private static SqsRefusal refused(String name, AttributeValue value) {
        return assertThrows(SqsRefusal.class, () -> MessageAttributes.of(Map.of(name, value)));
    }

    private static final AttributeValue TEXT = AttributeValue.string("String", "v");

    @Test
    void tenAttributesAreAcceptedAndElevenRefused() {
        Map<String, AttributeValue> ten = new HashMap<>();
        for (int i = 0; i < 10; i++) {
            ten.put("a" + i, TEXT);
        }
        assertEquals(10, MessageAttributes.of(ten).byName().size());
        ten.put("a10", TEXT);
        SqsRefusal refusal = assertThrows(SqsRefusal.class, () -> MessageAttributes.of(ten));
        assertEquals(SqsRefusal.Reason.INVALID_PARAMETER_VALUE, refusal.reason());
        assertTrue(refusal.getMessage().contains("[11]") && refusal.getMessage().contains("[10]"));
    }

    @Test
    void namesFollowAwsRules() {
        MessageAttributes.of(Map.of("a".repeat(256), TEXT));
        refused("a".repeat(257), TEXT);
        refused("", TEXT);
        refused("has space", TEXT);
        refused("ünïcode", TEXT);
        refused("AWS.reserved", TEXT);
        refused("aws.Reserved", TEXT);
        refused("Amazon.x", TEXT);
        refused("AMAZON.x", TEXT);
        refused(".start", TEXT);
        refused("end.", TEXT);
        refused("two..dots", TEXT);
        MessageAttributes.of(Map.of("AWSx", TEXT, "Amazonian", TEXT, "a.b-c_d", TEXT));
        // Names are case-sensitive: these are two attributes.
        assertEquals(
                2,
                MessageAttributes.of(Map.of("Name", TEXT, "name", TEXT))
                        .byName()
                        .size());
    }

    @Test
    void dataTypesAndValuesFollowAwsRules() {
        MessageAttributes.of(Map.of(
                "s", AttributeValue.string("String.label", "x"),
                "n", AttributeValue.string("Number.float", "3.25"),
                "b", AttributeValue.binary("Binary.gif", new byte[] {1})));
        refused("t", AttributeValue.string("Text", "x"));
        refused("t", AttributeValue.string("String.", "x"));
        refused("t", AttributeValue.string("String." + "l".repeat(250), "x"));
        refused("t", AttributeValue.string("String", ""));
        refused("t", AttributeValue.binary("Binary", new byte[0]));
        refused("t", AttributeValue.string("Binary", "x"));
        refused("t", AttributeValue.binary("String", new byte[] {1}));
        refused("t", AttributeValue.string("String", "bell \u0007"));
        refused("t", AttributeValue.string("Number", "12a"));
        MessageAttributes.of(Map.of("n", AttributeValue.string("Number", "1E126")));
        MessageAttributes.of(Map.of("n", AttributeValue.string("Number", "-1E-128")));
        MessageAttributes.of(Map.of("n", AttributeValue.string("Number", "0")));
        refused("n", AttributeValue.string("Number", "1E127"));
        refused("n", AttributeValue.string("Number", "1E-129"));
        MessageAttributes.of(Map.of("n", AttributeValue.string("Number", "1".repeat(38))));
        refused("n", AttributeValue.string("Number", "1".repeat(39)));
    }

    @Test
    void sizeCountsNamesTypesAndValues() {
        MessageAttributes attributes = MessageAttributes.of(
                Map.of("ab", AttributeValue.string("String", "é"), "c", AttributeValue.binary("Binary", new byte[3])));
        assertEquals(2 + 6 + 2 + 1 + 6 + 3, attributes.size());
    }

    @Test
    void selectionByNameAllAndPrefix() {
        MessageAttributes attributes =
                MessageAttributes.of(Map.of("order.id", TEXT, "order.total", TEXT, "trace", TEXT));
        assertEquals(3, attributes.selected(List.of("All")).byName().size());
        assertEquals(3, attributes.selected(List.of(".*")).byName().size());
        assertEquals(2, attributes.selected(List.of("order.*")).byName().size());
        assertEquals(
                1, attributes.selected(List.of("trace", "missing")).byName().size());
        assertTrue(attributes.selected(List.of()).isEmpty());
    }

    @Test
    void bodiesFollowAwsCharactersAndTheCrossApiRule() {
        SqsBodies.check("tab\t, astral \uD83D\uDE00, \uE000\uFFFD");
        assertEquals(
                SqsRefusal.Reason.INVALID_MESSAGE_CONTENTS,
                assertThrows(SqsRefusal.class, () -> SqsBodies.check("nul \u0000"))
                        .reason());
        assertEquals(
                SqsRefusal.Reason.INVALID_MESSAGE_CONTENTS,
                assertThrows(SqsRefusal.class, () -> SqsBodies.check("lone \uD800 surrogate"))
                        .reason());
        assertEquals(
                SqsRefusal.Reason.INVALID_MESSAGE_CONTENTS,
                assertThrows(SqsRefusal.class, () -> SqsBodies.check("\uFFFE")).reason());
        assertEquals(
                SqsRefusal.Reason.MISSING_PARAMETER,
                assertThrows(SqsRefusal.class, () -> SqsBodies.check(null)).reason());
        String body = "{\"looks\": \"like json\"} \"quoted\" \\ é";
        assertEquals(body, SqsBodies.received(SqsBodies.stored(body)));
        assertEquals("{\"a\":1}", SqsBodies.received("{\"a\":1}"));
        assertEquals("[1,2]", SqsBodies.received("[1,2]"));
        assertEquals("12.5", SqsBodies.received("12.5"));
        assertEquals("null", SqsBodies.received("null"));
    }
}
