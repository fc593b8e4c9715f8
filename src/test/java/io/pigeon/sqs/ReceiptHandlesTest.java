package io.pigeon.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A handle opens only on the queue and project it was made for, under the key it was made with, unchanged: anything
 * else is ReceiptHandleIsInvalid, never another message.
 */
class ReceiptHandlesTest {

    private final ReceiptHandles.Signer signer = new ReceiptHandles.Signer(
            "a deployment secret of at least thirty-two bytes".getBytes(StandardCharsets.UTF_8));
    private final Receipt receipt = new Receipt(123456789L, UUID.randomUUID(), 3);

    private void assertInvalid(String project, String queue, String handle) {
        SqsRefusal refusal = assertThrows(SqsRefusal.class, () -> signer.open(project, queue, handle));
        assertEquals(SqsRefusal.Reason.RECEIPT_HANDLE_IS_INVALID, refusal.reason());
    }

    @Test
    void aHandleOpensOnItsOwnQueueOnly() {
        String handle = signer.handle("project-a", "jobs", receipt);
        assertEquals(receipt, signer.open("project-a", "jobs", handle));
        assertInvalid("project-b", "jobs", handle);
        assertInvalid("project-a", "jobs2", handle);
        // The lengths are part of what is signed: moving a character between project and queue does not help.
        assertInvalid("project-aj", "obs", handle);
    }

    @Test
    void anyChangedCharacterIsRefused() {
        String handle = signer.handle("p", "q", receipt);
        for (int i = 0; i < handle.length(); i++) {
            char changed = handle.charAt(i) == 'A' ? 'B' : 'A';
            String altered = handle.substring(0, i) + changed + handle.substring(i + 1);
            if (!altered.equals(handle)) {
                assertThrows(SqsRefusal.class, () -> signer.open("p", "q", altered), "position " + i);
            }
        }
        assertInvalid("p", "q", handle + "A");
        assertInvalid("p", "q", handle.substring(1));
        assertInvalid("p", "q", "not base64 at all!");
        assertInvalid("p", "q", "x".repeat(5000));
    }

    @Test
    void anotherDeploymentsKeyDoesNotOpenIt() {
        ReceiptHandles.Signer other = new ReceiptHandles.Signer(
                "another deployment's secret, also long enough".getBytes(StandardCharsets.UTF_8));
        String handle = other.handle("p", "q", receipt);
        assertInvalid("p", "q", handle);
    }

    @Test
    void aHandleIsOpaqueText() {
        String handle = signer.handle("p", "q", receipt);
        assertTrue(handle.matches("[A-Za-z0-9_-]+"), handle);
        Base64.getUrlDecoder().decode(handle);
        assertEquals(
                SqsRefusal.Reason.MISSING_PARAMETER,
                assertThrows(SqsRefusal.class, () -> signer.open("p", "q", "")).reason());
    }
}
