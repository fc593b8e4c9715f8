package io.pigeon.sqs;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * SQS receipt handles: opaque, and impossible to forge or to move. A handle is the {@link Receipt} (message id, claim
 * id, receive count) and an HMAC-SHA256 (its first 128 bits) of it together with the project and the queue, under the
 * deployment's receipt-handle secret: the random value migration V29 stored once in the configured database
 * ({@code deployment_secrets}, as the call marker's), which every replica reads. A handle shown for one queue or
 * project fails the check anywhere else, as does any changed byte: {@code ReceiptHandleIsInvalid}. The secret never
 * leaves the database and the replicas; a handle says nothing a caller could not see in the message anyway.
 */
@ApplicationScoped
public class ReceiptHandles {

    private static final String SECRET_ROW = "SELECT value FROM deployment_secrets WHERE name = 'receipt-handles'";
    private static final byte VERSION = 1;
    private static final int MAC_BYTES = 16;
    private static final int PAYLOAD_BYTES = 1 + 8 + 16 + 4;
    /** Longer than any handle this class makes, and than SQS's own (up to 1,024 characters). */
    private static final int MAX_HANDLE_LENGTH = 1024;

    private static final byte[] CONTEXT = "pigeon sqs receipt handle v1".getBytes(StandardCharsets.US_ASCII);

    private final Pool catalogue;
    /** The key once read (a failed read is tried again next time). */
    private volatile SecretKeySpec key;

    public ReceiptHandles(Pool catalogue) {
        this.catalogue = catalogue;
    }

    /** The signer and checker of handles, once the deployment's secret is known. */
    public Uni<Signer> signer() {
        SecretKeySpec known = key;
        if (known != null) {
            return Uni.createFrom().item(new Signer(known));
        }
        return catalogue.query(SECRET_ROW).execute().map(rows -> {
            if (rows.size() == 0) {
                throw new IllegalStateException("deployment_secrets has no receipt-handles row (migration V29)");
            }
            SecretKeySpec read = new SecretKeySpec(
                    rows.iterator().next().getString(0).getBytes(StandardCharsets.UTF_8), "HmacSHA256");
            key = read;
            return new Signer(read);
        });
    }

    /** Makes and checks handles under one key. */
    public static final class Signer {
        private final SecretKeySpec key;

        /** A signer under {@code secret} (the tests' own; the service's comes from {@link ReceiptHandles#signer}). */
        public Signer(byte[] secret) {
            this(new SecretKeySpec(secret, "HmacSHA256"));
        }

        private Signer(SecretKeySpec key) {
            this.key = key;
        }

        /** The handle of {@code receipt} on queue {@code queue} (stored name) of {@code project}. */
        public String handle(String project, String queue, Receipt receipt) {
            ByteBuffer payload = ByteBuffer.allocate(PAYLOAD_BYTES + MAC_BYTES);
            payload.put(VERSION)
                    .putLong(receipt.messageId())
                    .putLong(receipt.claimId().getMostSignificantBits())
                    .putLong(receipt.claimId().getLeastSignificantBits())
                    .putInt(receipt.receiveCount());
            payload.put(mac(project, queue, payload.array(), PAYLOAD_BYTES));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(payload.array());
        }

        /**
         * The receipt {@code handle} stands for on queue {@code queue} of {@code project}; {@code
         * ReceiptHandleIsInvalid} when it is not a handle this deployment made for that queue, or was changed.
         */
        public Receipt open(String project, String queue, String handle) {
            if (handle == null || handle.isEmpty()) {
                throw new SqsRefusal(
                        SqsRefusal.Reason.MISSING_PARAMETER, "The request must contain the parameter ReceiptHandle.");
            }
            byte[] bytes;
            try {
                bytes = handle.length() > MAX_HANDLE_LENGTH
                        ? null
                        : Base64.getUrlDecoder().decode(handle);
            } catch (IllegalArgumentException notBase64) {
                bytes = null;
            }
            if (bytes == null
                    || bytes.length != PAYLOAD_BYTES + MAC_BYTES
                    || bytes[0] != VERSION
                    || !MessageDigest.isEqual(
                            mac(project, queue, bytes, PAYLOAD_BYTES),
                            Arrays.copyOfRange(bytes, PAYLOAD_BYTES, bytes.length))) {
                throw invalid(handle);
            }
            ByteBuffer payload = ByteBuffer.wrap(bytes, 1, PAYLOAD_BYTES - 1);
            long messageId = payload.getLong();
            UUID claimId = new UUID(payload.getLong(), payload.getLong());
            int receiveCount = payload.getInt();
            return new Receipt(messageId, claimId, receiveCount);
        }

        private byte[] mac(String project, String queue, byte[] payload, int length) {
            return mac(CONTEXT, project, queue, payload, length);
        }

        /**
         * The first 128 bits of the HMAC of {@code payload} bound to {@code project} and {@code queue}, under this
         * key, for the purpose {@code context} names (another handle than a receipt's, e.g. a move task's): a tag
         * made for one purpose never checks for another.
         */
        byte[] mac(byte[] context, String project, String queue, byte[] payload, int length) {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(key);
                mac.update(context);
                withLength(mac, project.getBytes(StandardCharsets.UTF_8));
                withLength(mac, queue.getBytes(StandardCharsets.UTF_8));
                mac.update(payload, 0, length);
                return Arrays.copyOf(mac.doFinal(), MAC_BYTES);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 is not available", e);
            }
        }

        private static void withLength(Mac mac, byte[] bytes) {
            mac.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
            mac.update(bytes);
        }
    }

    static SqsRefusal invalid(String handle) {
        String shown = handle.length() <= 128 ? handle : handle.substring(0, 128) + "...";
        return new SqsRefusal(
                SqsRefusal.Reason.RECEIPT_HANDLE_IS_INVALID,
                "The input receipt handle \"" + shown + "\" is not a valid receipt handle.");
    }
}
