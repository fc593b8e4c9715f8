package io.pigeon.accesskeys;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What a well-formed signed request claims: the access key id that signed it, the scope it was signed for, the
 * signature, and the strings to sign Pigeon computed from the request (usually one; more where clients are known to
 * canonicalise differently and both forms are AWS's). Checking it needs only the key's secret, so the lookup of the
 * secret (a database read) happens between reading the request and this check.
 */
public final class SignatureClaim {

    private static final ThreadLocal<Mac> MAC = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    });

    private final String accessKeyId;
    private final String date;
    private final String region;
    private final String service;
    private final byte[] signature;
    private final List<String> stringsToSign;

    SignatureClaim(
            String accessKeyId,
            String date,
            String region,
            String service,
            byte[] signature,
            List<String> stringsToSign) {
        this.accessKeyId = accessKeyId;
        this.date = date;
        this.region = region;
        this.service = service;
        this.signature = signature;
        this.stringsToSign = stringsToSign;
    }

    /** The access key id the request names. */
    public String accessKeyId() {
        return accessKeyId;
    }

    /** Whether the request was signed with {@code secretAccessKey}: compared in constant time. */
    public boolean signedWith(String secretAccessKey) {
        byte[] key = hmac(("AWS4" + secretAccessKey).getBytes(StandardCharsets.UTF_8), date);
        key = hmac(key, region);
        key = hmac(key, service);
        key = hmac(key, "aws4_request");
        boolean matched = false;
        for (String stringToSign : stringsToSign) {
            matched |= MessageDigest.isEqual(hmac(key, stringToSign), signature);
        }
        return matched;
    }

    private static byte[] hmac(byte[] key, String data) {
        Mac mac = MAC.get();
        try {
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("an HMAC key was refused", e);
        }
        return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    }
}
