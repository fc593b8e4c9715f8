package io.pigeon.testing;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals a body as Pigeon stored sealed bodies before the queue was part of the associated data (version 1): base64
 * of a 96-bit nonce, ciphertext and tag, AES-256-GCM with the project alone as associated data. Written out here,
 * apart from the application's cipher, so that rows stored by earlier releases are what the tests read.
 */
public final class Version1Seal {

    private Version1Seal() {}

    public static String seal(String base64Key, String project, String body) {
        try {
            byte[] nonce = new byte[12];
            new SecureRandom().nextBytes(nonce);
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(
                    Cipher.ENCRYPT_MODE,
                    new SecretKeySpec(Base64.getDecoder().decode(base64Key), "AES"),
                    new GCMParameterSpec(128, nonce));
            cipher.updateAAD(project.getBytes(StandardCharsets.UTF_8));
            byte[] sealed = cipher.doFinal(body.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder()
                    .encodeToString(ByteBuffer.allocate(12 + sealed.length)
                            .put(nonce)
                            .put(sealed)
                            .array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
