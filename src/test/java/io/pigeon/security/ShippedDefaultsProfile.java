package io.pigeon.security;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * Pigeon with the settings it ships with where the test profile differs: no allowed-targets list, the default
 * ports, and no trust in the X-Roles header.
 */
public class ShippedDefaultsProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "pigeon.dispatch.allowed-targets", "",
                "pigeon.dispatch.allowed-ports", "80,443,8080,8443",
                "pigeon.auth.trust-roles-header", "false");
    }
}
