package io.pigeon.api.ws;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** Small bounds on the bytes that sockets hold: 100 kB of frames per socket, 1 MB of frames and answers in all (as counted: 3 bytes a character). */
public class SocketByteBoundsProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "pigeon.websocket.max-frames-in-flight", "1000",
                "pigeon.websocket.max-held-bytes-per-socket", "100000",
                "pigeon.websocket.max-held-bytes", "1000000",
                "pigeon.websocket.ping-interval", "1h");
    }
}
