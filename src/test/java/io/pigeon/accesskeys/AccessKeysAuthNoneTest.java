package io.pigeon.accesskeys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * With authentication off (the test profile's {@code pigeon.auth.mode=none}) a signed SQS request's access key id
 * names its project and nothing else is checked, as {@code X-Project-Id} is trusted on the Zaqar API; a request that
 * names no key is still refused, with AWS's code.
 */
@QuarkusTest
class AccessKeysAuthNoneTest {

    @Inject
    AccessKeyService service;

    @Test
    void theAccessKeyIdNamesTheProject() {
        SignedCaller caller = service.verify(AccessKeysOidcTest.signed("my-project", "any secret", "{}"))
                .await()
                .indefinitely();
        assertTrue(caller.accepted(), caller.message());
        assertEquals("my-project", caller.project());

        SignedRequest presigned = new SignedRequest(
                "GET",
                "/000000000001/jobs",
                "Action=ListQueues&X-Amz-Credential=other-project%2F20200101%2Fus-east-1%2Fsqs%2Faws4_request",
                Map.of("Host", List.of("localhost")),
                new byte[0]);
        assertEquals(
                "other-project",
                service.verify(presigned).await().indefinitely().project());
    }

    @Test
    void aRequestNamingNoKeyIsRefused() {
        SignedRequest unsigned = new SignedRequest("POST", "/", "", Map.of("Host", List.of("localhost")), new byte[0]);
        assertEquals(
                SignatureRefusal.MISSING_AUTHENTICATION_TOKEN,
                service.verify(unsigned).await().indefinitely().refusal());
    }
}
