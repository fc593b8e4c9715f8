package io.pigeon.sqs;

import io.pigeon.queue.QueueName;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;

/**
 * The {@code TaskHandle} of a message move task: opaque to the caller, and bound to the project and the dead-letter
 * queue the task moves messages out of, so that a handle names a task only for its own project. It holds the task's
 * id and the queue's stored name (CancelMessageMoveTask names nothing else) and an HMAC of both with the project,
 * under the deployment's receipt-handle secret ({@link ReceiptHandles}) for another purpose: a receipt handle is never
 * a task handle, and a handle used by another project, or changed in any byte, names no task.
 */
final class MoveTaskHandles {

    private static final byte VERSION = 1;
    private static final int MAC_BYTES = 16;
    private static final int ID_BYTES = 16;
    /** Far longer than any handle made here (the queue's name is at most 80 characters). */
    private static final int MAX_HANDLE_LENGTH = 1024;

    private static final byte[] CONTEXT = "pigeon sqs move task handle v1".getBytes(StandardCharsets.US_ASCII);

    /** The task a handle names: its queue (stored name) and its id. */
    record Named(QueueName queue, UUID task) {}

    private MoveTaskHandles() {}

    static String handle(ReceiptHandles.Signer signer, String project, String queue, UUID task) {
        byte[] name = queue.getBytes(StandardCharsets.UTF_8);
        ByteBuffer payload = ByteBuffer.allocate(1 + ID_BYTES + name.length + MAC_BYTES);
        payload.put(VERSION)
                .putLong(task.getMostSignificantBits())
                .putLong(task.getLeastSignificantBits())
                .put(name);
        int length = payload.position();
        payload.put(signer.mac(CONTEXT, project, queue, payload.array(), length));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(payload.array());
    }

    /** The task {@code handle} names for {@code project}; empty when it is not one made for the project, or changed. */
    static Optional<Named> open(ReceiptHandles.Signer signer, String project, String handle) {
        byte[] bytes;
        try {
            bytes = handle.length() > MAX_HANDLE_LENGTH
                    ? null
                    : Base64.getUrlDecoder().decode(handle);
        } catch (IllegalArgumentException notBase64) {
            bytes = null;
        }
        // Only the spelling handle() writes: base64 leaves spare bits in a last group, which must not give a handle
        // twins that name the same task.
        if (bytes == null
                || bytes.length <= 1 + ID_BYTES + MAC_BYTES
                || bytes[0] != VERSION
                || !Base64.getUrlEncoder()
                        .withoutPadding()
                        .encodeToString(bytes)
                        .equals(handle)) {
            return Optional.empty();
        }
        int length = bytes.length - MAC_BYTES;
        String queue = new String(bytes, 1 + ID_BYTES, length - 1 - ID_BYTES, StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(
                signer.mac(CONTEXT, project, queue, bytes, length), Arrays.copyOfRange(bytes, length, bytes.length))) {
            return Optional.empty();
        }
        ByteBuffer id = ByteBuffer.wrap(bytes, 1, ID_BYTES);
        return Optional.of(new Named(QueueName.stored(queue), new UUID(id.getLong(), id.getLong())));
    }
}
