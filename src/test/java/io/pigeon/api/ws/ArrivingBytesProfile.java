package io.pigeon.api.ws;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * Small bounds on messages still arriving: 2,000,000 bytes over the replica as counted (twice the bytes), and 3 s to
 * finish a message.
 */
public class ArrivingBytesProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "pigeon.websocket.max-arriving-bytes", "2000000",
                "pigeon.websocket.message-arrival-timeout", "3s",
                "pigeon.websocket.ping-interval", "1s");
    }
}
