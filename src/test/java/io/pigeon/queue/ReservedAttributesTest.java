package io.pigeon.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.testing.TestConfig;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** A v2 queue's reserved attributes: their bounds (Zaqar's) and the defaults shown for those left unset. */
class ReservedAttributesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final MessageCipher NO_KEY = new MessageCipher(Map.of(), Optional.empty());
    private static final MessageCipher ONE_KEY =
            new MessageCipher(Map.of("k1", "UD+sP5z1K2Isq8RQUN7+rBVLAhwWioy/oA2dw0xOKWI="), Optional.empty());
    private final ReservedAttributes attributes = new ReservedAttributes(
            TestConfig.pigeon(Map.of()),
            TestConfig.settings(IdempotencySettings.class, Map.of()),
            TestConfig.settings(ClaimWaitSettings.class, Map.of()),
            ONE_KEY);

    private static ObjectNode object(String json) throws Exception {
        return (ObjectNode) JSON.readTree(json);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "{}",
                "{\"_max_messages_post_size\": 1}",
                "{\"_max_messages_post_size\": 262144}",
                "{\"_default_message_ttl\": 60}",
                "{\"_default_message_ttl\": 1209600}",
                "{\"_default_message_delay\": 900}",
                "{\"_dead_letter_queue\": \"dead\", \"_max_claim_count\": 1, \"_dead_letter_queue_messages_ttl\": 60}",
                "{\"_dead_letter_queue\": null, \"_max_claim_count\": null}",
                "{\"_enable_encrypt_messages\": false}",
                "{\"_retry_policy\": {\"minimum_delay\": 1}}",
                "{\"anything\": [1, {\"else\": true}]}"
            })
    void withinTheirBounds(String metadata) throws Exception {
        attributes.validate(object(metadata));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"_max_messages_post_size\": 0}              | _max_messages_post_size must be an integer from 1 to 262144",
                "{\"_max_messages_post_size\": 262145}         | _max_messages_post_size must be an integer from 1 to 262144",
                "{\"_default_message_ttl\": 59}                | _default_message_ttl must be an integer from 60 to 1209600",
                "{\"_default_message_ttl\": \"60\"}            | _default_message_ttl must be an integer",
                "{\"_default_message_delay\": 901}             | _default_message_delay must be an integer from 0 to 900",
                "{\"_default_message_ttl\": null}              | _default_message_ttl must be an integer",
                "{\"_dead_letter_queue_messages_ttl\": 59}     | _dead_letter_queue_messages_ttl must be an integer from 60",
                "{\"_max_claim_count\": 0}                     | _max_claim_count must be an integer from 1",
                "{\"_dead_letter_queue\": 5}                   | _dead_letter_queue must be a queue name or null",
                "{\"_dead_letter_queue\": \"bad$name\"}        | queue name",
                "{\"_enable_encrypt_messages\": \"yes\"}       | _enable_encrypt_messages must be a boolean",
                "{\"_retry_policy\": {\"minimum_delay\": -1}}  | _retry_policy.minimum_delay"
            })
    void outsideTheirBoundsNamingTheAttribute(String metadata, String message) throws Exception {
        ObjectNode document = object(metadata);
        RuntimeException refused = assertThrows(RuntimeException.class, () -> attributes.validate(document));
        assertTrue(refused.getMessage().contains(message), refused.getMessage());
    }

    @Test
    void encryptionMayBeAskedForOnlyWhenTheServerHasAKey() throws Exception {
        attributes.validate(object("{\"_enable_encrypt_messages\": true}"));
        ReservedAttributes keyless = new ReservedAttributes(
                TestConfig.pigeon(Map.of()),
                TestConfig.settings(IdempotencySettings.class, Map.of()),
                TestConfig.settings(ClaimWaitSettings.class, Map.of()),
                NO_KEY);
        keyless.validate(object("{\"_enable_encrypt_messages\": false}"));
        RuntimeException refused = assertThrows(
                RuntimeException.class, () -> keyless.validate(object("{\"_enable_encrypt_messages\": true}")));
        assertEquals(
                "_enable_encrypt_messages cannot be true: this server has no encryption key configured "
                        + "(pigeon.encryption.keys).",
                refused.getMessage());
    }

    @Test
    void unsetAttributesShowTheirDefaults() throws Exception {
        ObjectNode shown = attributes.withDefaults(object("{\"_default_message_ttl\": 120, \"owner\": \"me\"}"));
        assertEquals(
                object(
                        """
                {"_default_message_ttl": 120, "owner": "me", "_max_messages_post_size": 262144,
                 "_default_message_delay": 0, "_dead_letter_queue": null, "_dead_letter_queue_messages_ttl": null,
                 "_max_claim_count": null, "_enable_encrypt_messages": false}"""),
                shown);
    }
}
