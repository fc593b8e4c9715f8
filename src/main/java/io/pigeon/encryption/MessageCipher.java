package io.pigeon.encryption;

import io.pigeon.config.KeySettings;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals and opens the bodies of messages stored encrypted: AES-256-GCM (authenticated: a changed byte is an
 * error, never a different body), a fresh 96-bit nonce per body, the project and the queue as associated data (a
 * sealed body copied into another project's or another queue's row does not open). The id of the key is stored
 * beside the text, so that a key can be replaced while messages sealed with the old one still live.
 *
 * <p>The stored text has two versions. Version 2 (every body sealed now) is {@code 2:<queue>:<base64>}: the queue
 * it was sealed for, then base64 of nonce, ciphertext and tag, with the project and that queue (each with its
 * length) as associated data. The queue is written in the text so that a notification, which waits in the delivery
 * tables apart from its queue, can be opened; a row of a queue opens only when the text names that same queue, and
 * the name cannot be changed without the tag failing. Version 1 (rows sealed before, still read) is the base64
 * alone, with the project alone as associated data. Base64 holds no {@code ':'}, so the two never mix up.
 */
@ApplicationScoped
@Startup // a bad key or key directory stops the start, rather than the first request that needs a key
public class MessageCipher {

    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final SecureRandom RANDOM = new SecureRandom();
    /** The start of a version 2 text, and what the associated data of version 2 begins with. */
    private static final String VERSION_2 = "2:";

    private static final byte[] VERSION_2_CONTEXT = "pigeon message v2".getBytes(StandardCharsets.US_ASCII);

    /** A body as stored: the key's id and base64 of nonce, ciphertext and tag. */
    public record Sealed(String keyId, String text) {}

    /** A stored body that cannot be opened: its key is not configured, or the text was changed. */
    public static final class Unreadable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unreadable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final Map<String, SecretKeySpec> keys;
    private final String currentKey;

    @Inject
    public MessageCipher(EncryptionSettings encryptionSettings) {
        this(
                KeySettings.encryptionKeyTexts(encryptionSettings.keys(), encryptionSettings.keyDirectory(), true),
                encryptionSettings.currentKey());
    }

    /** A cipher over {@code base64Keys} (id to key), sealing with {@code currentKey} (or the only key). */
    public MessageCipher(Map<String, String> base64Keys, Optional<String> currentKey) {
        Map<String, SecretKeySpec> decoded = new LinkedHashMap<>();
        base64Keys.forEach(
                (id, text) -> decoded.put(id, new SecretKeySpec(KeySettings.encryptionKey(id, text), "AES")));
        this.keys = Collections.unmodifiableMap(decoded);
        this.currentKey = KeySettings.currentEncryptionKey(keys.keySet(), currentKey);
    }

    /** Whether a key is configured, so that a queue may ask for its messages to be stored encrypted. */
    public boolean enabled() {
        return currentKey != null;
    }

    /** {@code body} sealed for the queue stored as {@code queue} of {@code project}, with the current key. */
    public Sealed seal(String project, String queue, String body) {
        if (currentKey == null) {
            throw new IllegalStateException("no encryption key is configured (pigeon.encryption.keys)");
        }
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        try {
            Cipher cipher = cipher(Cipher.ENCRYPT_MODE, keys.get(currentKey), nonce, associatedData(project, queue));
            byte[] sealed = cipher.doFinal(body.getBytes(StandardCharsets.UTF_8));
            ByteBuffer stored =
                    ByteBuffer.allocate(nonce.length + sealed.length).put(nonce).put(sealed);
            return new Sealed(
                    currentKey, VERSION_2 + queue + ':' + Base64.getEncoder().encodeToString(stored.array()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available", e);
        }
    }

    /**
     * The body {@link #seal} was given, from the stored text of a row of queue {@code queue}; {@code keyId} null
     * means it is stored in clear. A text sealed for another queue does not open.
     */
    public String open(String project, String queue, String keyId, String stored) {
        if (keyId != null && isVersion2(stored) && !queue.equals(sealedFor(stored))) {
            throw new Unreadable("a stored message sealed with key " + keyId + " was sealed for another queue", null);
        }
        return open(project, keyId, stored);
    }

    /**
     * The body of a stored text without a row of a queue to check it against (a notification waiting to be sent):
     * a version 2 text opens for the queue it names, of {@code project} only.
     */
    public String open(String project, String keyId, String stored) {
        if (keyId == null) {
            return stored;
        }
        SecretKeySpec key = keys.get(keyId);
        if (key == null) {
            throw new Unreadable(
                    "a stored message is sealed with key " + keyId
                            + ", which is not configured (pigeon.encryption.keys." + keyId + ")",
                    null);
        }
        try {
            boolean version2 = isVersion2(stored);
            byte[] associatedData =
                    version2 ? associatedData(project, sealedFor(stored)) : project.getBytes(StandardCharsets.UTF_8);
            byte[] bytes =
                    Base64.getDecoder().decode(version2 ? stored.substring(stored.lastIndexOf(':') + 1) : stored);
            if (bytes.length < NONCE_BYTES + TAG_BITS / 8) {
                throw new Unreadable("a stored message sealed with key " + keyId + " is too short to be sealed", null);
            }
            Cipher cipher = cipher(Cipher.DECRYPT_MODE, key, Arrays.copyOf(bytes, NONCE_BYTES), associatedData);
            return new String(cipher.doFinal(bytes, NONCE_BYTES, bytes.length - NONCE_BYTES), StandardCharsets.UTF_8);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new Unreadable(
                    "a stored message sealed with key " + keyId + " does not open: it was changed, "
                            + "or belongs to another project or queue, or the key was replaced under the same id",
                    e);
        }
    }

    /** Whether {@code stored} (a sealed text) names the queue it was sealed for (version 2). */
    public static boolean isVersion2(String stored) {
        return stored.startsWith(VERSION_2) && stored.lastIndexOf(':') >= VERSION_2.length();
    }

    /** The queue a version 2 text was sealed for (authenticated only once the text opens). */
    public static String sealedFor(String stored) {
        return stored.substring(VERSION_2.length(), stored.lastIndexOf(':'));
    }

    /** Version 2's associated data: a context, then the project and the queue, each after its length in bytes. */
    private static byte[] associatedData(String project, String queue) {
        byte[] projectBytes = project.getBytes(StandardCharsets.UTF_8);
        byte[] queueBytes = queue.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(VERSION_2_CONTEXT.length + 8 + projectBytes.length + queueBytes.length)
                .put(VERSION_2_CONTEXT)
                .putInt(projectBytes.length)
                .put(projectBytes)
                .putInt(queueBytes.length)
                .put(queueBytes)
                .array();
    }

    private static Cipher cipher(int mode, SecretKeySpec key, byte[] nonce, byte[] associatedData)
            throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
        cipher.updateAAD(associatedData);
        return cipher;
    }
}
