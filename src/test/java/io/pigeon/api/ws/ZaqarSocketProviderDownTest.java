package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.tenancy.ProviderDownDispatcherOffProfile;
import io.pigeon.tenancy.Tokens;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * With the OIDC provider unreachable no token can be checked over the socket either: {@code authenticate} is refused
 * as HTTP refuses the token (401, or 503 for "try again"), never a 500, and the socket keeps answering (refusing).
 * Only refused frames are sent (the profile's other classes rely on that).
 */
@QuarkusTest
@TestProfile(ProviderDownDispatcherOffProfile.class)
class ZaqarSocketProviderDownTest {

    @Test
    void authenticateIsRefusedAndTheSocketStaysUsable() {
        try (SocketClient socket = SocketClient.open()) {
            for (String token : List.of(Tokens.valid(List.of("p")), "forged.token.value")) {
                ObjectNode authenticate = SocketClient.JSON.createObjectNode().put("action", "authenticate");
                authenticate.putObject("headers").put("X-Auth-Token", token).put("X-Project-ID", "p");
                var refused = socket.call(authenticate);
                assertTrue(refused.status() == 401 || refused.status() == 503, refused.text());
                assertEquals(
                        "Authentication failed.", refused.body().get("error").asText());
                assertEquals("{}", refused.document().at("/request/headers").toString());
                var notYet = socket.call(frame("queue_list", "p", null));
                assertEquals(403, notYet.status());
                assertEquals("Not authentified.", notYet.body().get("error").asText());
            }
        }
    }
}
