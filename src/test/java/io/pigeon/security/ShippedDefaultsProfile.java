package io.pigeon.security;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * Pigeon with the settings it ships with where the test profile differs: no allowed-targets list, the default
 * ports, no trust in the X-Roles header, and the shipped per-address shares of connections and sockets.
 */
public class ShippedDefaultsProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "pigeon.dispatch.allowed-targets", "",
                "pigeon.dispatch.allowed-ports", "80,443,8080,8443",
                "pigeon.auth.trust-roles-header", "false",
                "pigeon.http.max-connections-per-address", "512",
                "pigeon.websocket.max-sockets-per-address", "256");
    }
}
