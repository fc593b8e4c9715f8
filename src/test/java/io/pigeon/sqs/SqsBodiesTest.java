package io.pigeon.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * What a stored (Zaqar) body becomes when received through SQS, without a server: a body posted through Zaqar may hold
 * characters SQS never lets a body hold (JSON can escape any of them), and an SQS client must still be able to read it.
 */
class SqsBodiesTest {

    @Test
    void aZaqarBodyWithCharactersSqsDoesNotAllowIsReceivedWithThemReplaced() {
        String received = SqsBodies.received("\"a\\u0001b\\u0000c\\ufffed\\ud800e\\ud83d\\ude00f\"");
        assertEquals("a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uD83D\uDE00f", received);
        assertTrue(SqsBodies.allowedCharacters(received));
        assertEquals("{\"k\":\"\\u0001\"}", SqsBodies.received("{\"k\":\"\\u0001\"}"));
        assertEquals("plain \t\n\r text", SqsBodies.received("\"plain \\t\\n\\r text\""));
    }
}
