package io.pigeon.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.queue.QueueName;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A move task's handle names its task only for the project it was made for, unchanged, and is never a receipt handle
 * (nor a receipt handle a task handle): anything else names no task.
 */
class MoveTaskHandlesTest {

    private final ReceiptHandles.Signer signer = new ReceiptHandles.Signer(
            "a deployment secret of at least thirty-two bytes".getBytes(StandardCharsets.UTF_8));
    private final UUID task = UUID.randomUUID();

    @Test
    void aHandleNamesItsTaskForItsProjectOnly() {
        String handle = MoveTaskHandles.handle(signer, "project-a", "dead-letters", task);
        assertEquals(
                Optional.of(new MoveTaskHandles.Named(QueueName.stored("dead-letters"), task)),
                MoveTaskHandles.open(signer, "project-a", handle));
        assertEquals(Optional.empty(), MoveTaskHandles.open(signer, "project-b", handle));
        ReceiptHandles.Signer otherKey = new ReceiptHandles.Signer(
                "another deployment's secret, also thirty-two bytes".getBytes(StandardCharsets.UTF_8));
        assertEquals(Optional.empty(), MoveTaskHandles.open(otherKey, "project-a", handle));
    }

    @Test
    void anyChangedCharacterAndAnyOtherHandleNameNoTask() {
        String handle = MoveTaskHandles.handle(signer, "p", "q", task);
        for (int i = 0; i < handle.length(); i++) {
            char changed = handle.charAt(i) == 'A' ? 'B' : 'A';
            String forged = handle.substring(0, i) + changed + handle.substring(i + 1);
            assertEquals(Optional.empty(), MoveTaskHandles.open(signer, "p", forged), forged);
        }
        // Base64's spare bits: a last character that decodes to the same bytes is refused too.
        String last = handle.substring(0, handle.length() - 1);
        for (char spare : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".toCharArray()) {
            if (spare != handle.charAt(handle.length() - 1)) {
                assertEquals(Optional.empty(), MoveTaskHandles.open(signer, "p", last + spare), last + spare);
            }
        }
        String receipt = signer.handle("p", "q", new Receipt(1L, task, 1));
        assertEquals(Optional.empty(), MoveTaskHandles.open(signer, "p", receipt), "a receipt handle");
        for (String odd : new String[] {"", "!!!", "A".repeat(2000), handle + "AAAA", handle.substring(0, 10)}) {
            assertEquals(Optional.empty(), MoveTaskHandles.open(signer, "p", odd), odd);
        }
        assertTrue(handle.matches("[A-Za-z0-9_-]+"), handle);
    }
}
