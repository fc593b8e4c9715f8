package io.pigeon.api.ws;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** Small websocket bounds, no server pings. */
public class SmallSocketLimitsProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "pigeon.websocket.max-frames-in-flight", "2",
                "pigeon.websocket.max-sockets", "6",
                "pigeon.websocket.max-sockets-per-project", "1",
                "pigeon.websocket.idle-timeout", "2s",
                "pigeon.websocket.ping-interval", "1h",
                "pigeon.websocket.max-pending-notification-bytes", "65536");
    }
}
