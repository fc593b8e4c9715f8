package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.tenancy.OidcProfile;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

/** In token mode a socket is served nothing before it authenticates (token checking over the socket is to come). */
@QuarkusTest
@TestProfile(OidcProfile.class)
class ZaqarSocketOidcTest {

    private final String project = Api.newProject();

    @Test
    void everyFrameIsRefusedBeforeAuthentication() {
        try (SocketClient socket = SocketClient.open()) {
            var refused = socket.call(frame("queue_list", project, null));
            assertEquals(403, refused.status());
            assertEquals("Not authentified.", refused.body().get("error").asText());
            assertEquals(403, socket.call(frame("get_home_doc", project, null)).status());
            ObjectNode authenticate = SocketClient.JSON.createObjectNode().put("action", "authenticate");
            authenticate.putObject("headers").put("X-Auth-Token", "a-token").put("X-Project-ID", project);
            var notYet = socket.call(authenticate);
            assertEquals(501, notYet.status());
            assertEquals("{}", notYet.document().at("/request/headers").toString());
        }
    }
}
