package io.pigeon.accesskeys;

import io.pigeon.config.KeySettings;
import io.pigeon.encryption.EncryptionSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret access key of each access key, derived and never stored: HMAC-SHA256, under a key of its own made from
 * one of the deployment's message keys ({@code pigeon.encryption.keys}), of the access key's id and project. The
 * database holds only which message key a secret was derived from; whoever reads it (a backup, a replica) without the
 * deployment's keys holds no secret, and a row moved to another project derives another secret. Taken from a message
 * key rather than a setting of its own, so that the keys an operator already keeps, mounts and rotates cover these
 * too; a message key that an access key names must stay configured for as long as that access key is used.
 */
@ApplicationScoped
public class KeyDerivation {

    /** A secret is 30 bytes, 40 characters of base64, as long as AWS's. */
    private static final int SECRET_BYTES = 30;

    private static final byte[] LABEL = "pigeon access keys v1".getBytes(StandardCharsets.US_ASCII);

    private final Map<String, byte[]> roots;
    private final String current;

    @Inject
    public KeyDerivation(EncryptionSettings encryption) {
        this(
                KeySettings.encryptionKeyTexts(encryption.keys(), encryption.keyDirectory(), false),
                encryption.currentKey());
    }

    /** Derivation from the base64 message keys {@code base64Keys} (id to key), new keys from {@code currentKey}. */
    public KeyDerivation(Map<String, String> base64Keys, Optional<String> currentKey) {
        Map<String, byte[]> derived = new LinkedHashMap<>();
        // each message key gives a key of its own for this purpose: the AES key itself is never an HMAC key
        base64Keys.forEach((id, text) -> derived.put(id, hmac(KeySettings.encryptionKey(id, text), LABEL)));
        this.roots = Collections.unmodifiableMap(derived);
        this.current = KeySettings.currentEncryptionKey(roots.keySet(), currentKey);
    }

    /** The id of the message key new access keys are derived from; empty when none is configured. */
    public Optional<String> current() {
        return Optional.ofNullable(current);
    }

    /** The secret of {@code accessKeyId} of {@code project}, derived from {@code derivedFrom}; empty if it is gone. */
    public Optional<String> secret(String derivedFrom, String accessKeyId, String project) {
        byte[] root = roots.get(derivedFrom);
        if (root == null) {
            return Optional.empty();
        }
        byte[] id = accessKeyId.getBytes(StandardCharsets.UTF_8);
        byte[] owner = project.getBytes(StandardCharsets.UTF_8);
        // the id's length first, so that no other (id, project) pair gives the same input
        byte[] input = new byte[4 + id.length + owner.length];
        input[0] = (byte) (id.length >>> 24);
        input[1] = (byte) (id.length >>> 16);
        input[2] = (byte) (id.length >>> 8);
        input[3] = (byte) id.length;
        System.arraycopy(id, 0, input, 4, id.length);
        System.arraycopy(owner, 0, input, 4 + id.length, owner.length);
        return Optional.of(Base64.getEncoder().encodeToString(Arrays.copyOf(hmac(root, input), SECRET_BYTES)));
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }
}
