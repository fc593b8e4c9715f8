package io.pigeon.security;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * Pigeon with the settings it ships with where the test profile differs: no allowed-targets list, the default
 * ports, no trust in the X-Roles header, and the shipped per-address share of sockets (ShippedDefaultsTest). The
 * per-address share of HTTP connections stays off, as in every test profile: RestAssured leaves each request's
 * connection open until its client is collected, so a class that makes hundreds of requests from 127.0.0.1 (as
 * ZaqarSocketByteBoundsTest does) reaches the shipped 512 by chance; ConnectionLimitsTest checks that share.
 *
 * <p>Also small bounds on the bytes that websockets hold, so that ZaqarSocketByteBoundsTest shares this start rather
 * than one of its own: 100 kB of frames per socket, 1 MB of frames and answers in all (as counted: 3 bytes a
 * character), 1,000 frames in flight per socket (so that only the bytes bound the frames) and no server pings.
 * ShippedDefaultsTest opens no socket, and the moved class neither calls targets nor sends X-Roles, and holds 5
 * sockets at most, far below the shipped share per address: neither sees the other's settings.
 */
public class ShippedDefaultsProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "pigeon.dispatch.allowed-targets", "",
                "pigeon.dispatch.allowed-ports", "80,443,8080,8443",
                "pigeon.auth.trust-roles-header", "false",
                "pigeon.websocket.max-sockets-per-address", "256",
                "pigeon.websocket.max-frames-in-flight", "1000",
                "pigeon.websocket.max-held-bytes-per-socket", "100000",
                "pigeon.websocket.max-held-bytes", "1000000",
                "pigeon.websocket.ping-interval", "1h");
    }
}
