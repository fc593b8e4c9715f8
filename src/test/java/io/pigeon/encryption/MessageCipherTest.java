package io.pigeon.encryption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.TestConfig;
import io.pigeon.testing.Version1Seal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sealing and opening message bodies: authenticated, bound to the project and the queue, readable across a key
 * rotation, and rows sealed before the queue was bound (version 1) still open.
 */
class MessageCipherTest {

    private static final String OLD = "UD+sP5z1K2Isq8RQUN7+rBVLAhwWioy/oA2dw0xOKWI=";
    private static final String NEW = "06YOtY2yjDLK+G7vwVqNAKuhfzfu2axfFXawRsvc+sg=";
    private final MessageCipher beforeRotation = new MessageCipher(Map.of("k1", OLD), Optional.empty());
    private final MessageCipher afterRotation = new MessageCipher(Map.of("k1", OLD, "k2", NEW), Optional.of("k2"));

    @ParameterizedTest
    @ValueSource(strings = {"{\"event\": \"BackupStarted\"}", "\"caf\u00e9 \u2603 \\u0000\"", "42", "null", "[]"})
    void whatIsSealedOpensToTheSameText(String body) {
        MessageCipher.Sealed sealed = beforeRotation.seal("p1", "q1", body);
        assertEquals("k1", sealed.keyId());
        // What is stored is the queue and base64 of exactly a nonce, the ciphertext (as long as the body) and the tag:
        // no room for the body in clear. A check that the random base64 does not contain the body's text would fail by
        // chance for a short body ("42" does, about once in a hundred runs), so it is made only where the chance is
        // nil.
        assertTrue(sealed.text().matches("2:q1:[A-Za-z0-9+/]+={0,2}"), sealed.text());
        byte[] stored = Base64.getDecoder().decode(sealed.text().substring("2:q1:".length()));
        assertEquals(12 + body.getBytes(StandardCharsets.UTF_8).length + 16, stored.length, sealed.text());
        if (body.length() >= 16) {
            assertFalse(sealed.text().contains(body), "the stored text must not hold the body");
        }
        assertEquals(body, beforeRotation.open("p1", "q1", sealed.keyId(), sealed.text()));
    }

    @Test
    void theSameBodyIsNeverStoredTwiceAlike() {
        assertNotEquals(
                beforeRotation.seal("p1", "q1", "{}").text(),
                beforeRotation.seal("p1", "q1", "{}").text());
    }

    @Test
    void aBodyInClearIsReadAsItIs() {
        assertEquals("{\"a\": 1}", beforeRotation.open("p1", "q1", null, "{\"a\": 1}"));
    }

    @Test
    void aChangedByteDoesNotOpen() {
        MessageCipher.Sealed sealed = beforeRotation.seal("p1", "q1", "{\"amount\": 100}");
        String prefix = sealed.text().substring(0, sealed.text().lastIndexOf(':') + 1);
        byte[] bytes = Base64.getDecoder().decode(sealed.text().substring(prefix.length()));
        bytes[bytes.length - 20] ^= 1;
        String changed = prefix + Base64.getEncoder().encodeToString(bytes);
        assertThrows(MessageCipher.Unreadable.class, () -> beforeRotation.open("p1", "q1", "k1", changed));
        assertThrows(MessageCipher.Unreadable.class, () -> beforeRotation.open("p1", "q1", "k1", "bm90IHNlYWxlZA=="));
        assertThrows(MessageCipher.Unreadable.class, () -> beforeRotation.open("p1", "q1", "k1", "not base64 at all!"));
    }

    @Test
    void aBodyMovedToAnotherProjectDoesNotOpen() {
        MessageCipher.Sealed sealed = beforeRotation.seal("p1", "q1", "{\"secret\": true}");
        assertThrows(
                MessageCipher.Unreadable.class, () -> beforeRotation.open("p2", "q1", sealed.keyId(), sealed.text()));
    }

    @Test
    void aBodyMovedToAnotherQueueDoesNotOpenWhateverItsTextSays() {
        MessageCipher.Sealed sealed = beforeRotation.seal("p1", "q1", "{\"secret\": true}");
        assertTrue(sealed.text().startsWith("2:q1:"), sealed.text());
        String base64 = sealed.text().substring("2:q1:".length());
        // Copied as it is into a row of q2; with the name in it changed; without the version's prefix (as version 1).
        assertThrows(MessageCipher.Unreadable.class, () -> beforeRotation.open("p1", "q2", "k1", sealed.text()));
        assertThrows(MessageCipher.Unreadable.class, () -> beforeRotation.open("p1", "q2", "k1", "2:q2:" + base64));
        assertThrows(MessageCipher.Unreadable.class, () -> beforeRotation.open("p1", "q2", "k1", base64));
        assertThrows(MessageCipher.Unreadable.class, () -> beforeRotation.open("p1", "q1", "k1", base64));
        // A project and queue whose names run into each other are not the same pair.
        MessageCipher.Sealed ab = beforeRotation.seal("p", "1q1", "{}");
        assertThrows(
                MessageCipher.Unreadable.class,
                () -> beforeRotation.open(
                        "p1", "k1", "2:q1:" + ab.text().substring(ab.text().lastIndexOf(':') + 1)));
        // A notification, read apart from its queue, opens for the queue its text names, in its project only.
        assertEquals("{\"secret\": true}", beforeRotation.open("p1", "k1", sealed.text()));
        assertThrows(MessageCipher.Unreadable.class, () -> beforeRotation.open("p2", "k1", sealed.text()));
    }

    @Test
    void aBodySealedBeforeQueuesWereBoundStillOpensInItsProject() {
        String version1 = Version1Seal.seal(OLD, "p1", "{\"n\": 0}");
        assertFalse(MessageCipher.isVersion2(version1));
        assertEquals("{\"n\": 0}", beforeRotation.open("p1", "q1", "k1", version1));
        assertEquals("{\"n\": 0}", afterRotation.open("p1", "q1", "k1", version1));
        assertEquals("{\"n\": 0}", afterRotation.open("p1", "k1", version1));
        assertThrows(MessageCipher.Unreadable.class, () -> beforeRotation.open("p2", "q1", "k1", version1));
    }

    @Test
    void afterARotationOldBodiesOpenAndNewOnesTakeTheNewKey() {
        MessageCipher.Sealed old = beforeRotation.seal("p1", "q1", "{\"n\": 1}");
        assertEquals("{\"n\": 1}", afterRotation.open("p1", "q1", old.keyId(), old.text()));
        MessageCipher.Sealed fresh = afterRotation.seal("p1", "q1", "{\"n\": 2}");
        assertEquals("k2", fresh.keyId());
        MessageCipher.Unreadable missing = assertThrows(
                MessageCipher.Unreadable.class, () -> beforeRotation.open("p1", "q1", fresh.keyId(), fresh.text()));
        assertTrue(missing.getMessage().contains("pigeon.encryption.keys.k2"), missing.getMessage());
    }

    @Test
    void withoutKeysNothingCanBeSealed() {
        MessageCipher none = new MessageCipher(Map.of(), Optional.empty());
        assertFalse(none.enabled());
        assertThrows(IllegalStateException.class, () -> none.seal("p1", "q1", "{}"));
    }

    @Test
    void badKeyConfigurationsAreRefusedAtStartNamingTheSetting() {
        assertMessage(
                "must be 32 bytes (AES-256), it has 16",
                () -> new MessageCipher(
                        Map.of("k1", Base64.getEncoder().encodeToString(new byte[16])), Optional.empty()));
        assertMessage("is not base64", () -> new MessageCipher(Map.of("k1", "%%%"), Optional.empty()));
        assertMessage(
                "key id 'a/b' must be 1 to 64 letters", () -> new MessageCipher(Map.of("a/b", OLD), Optional.empty()));
        assertMessage("current-key names k9", () -> new MessageCipher(Map.of("k1", OLD), Optional.of("k9")));
        assertMessage(
                "current-key must name one of the keys",
                () -> new MessageCipher(Map.of("k1", OLD, "k2", NEW), Optional.empty()));
    }

    @Test
    void keysAreReadFromAMountedSecretDirectory(@TempDir Path directory) throws Exception {
        Files.writeString(directory.resolve("k2"), NEW + "\n");
        // What Kubernetes writes beside the keys of a mounted secret.
        Files.createDirectory(directory.resolve("..2026_11_23"));
        Files.writeString(directory.resolve("..data"), "not a key");
        MessageCipher mounted = new MessageCipher(TestConfig.settings(
                EncryptionSettings.class,
                Map.of(
                        "pigeon.encryption.key-directory",
                        directory.toString(),
                        "pigeon.encryption.keys.k1",
                        OLD,
                        "pigeon.encryption.current-key",
                        "k2")));
        assertEquals("k2", mounted.seal("p1", "q1", "{}").keyId());
        MessageCipher.Sealed old = beforeRotation.seal("p1", "q1", "[1]");
        assertEquals("[1]", mounted.open("p1", "q1", old.keyId(), old.text()));
    }

    private static void assertMessage(String expected, Executable construction) {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, construction);
        assertTrue(refused.getMessage().contains(expected), refused.getMessage());
    }
}
