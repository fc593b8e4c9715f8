package io.pigeon.tenancy;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * OIDC mode with a provider that cannot be reached (nothing listens on its port), and this application's dispatcher
 * off. Two classes share it, so one Quarkus start serves both: ProviderDownTest makes only requests that are refused
 * before anything is pushed, and DispatchLeaseTest makes no HTTP request at all (it plays the dispatchers itself on
 * the store, which this application's own dispatcher must not race).
 */
public class ProviderDownDispatcherOffProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "pigeon.auth.mode", "oidc",
                "quarkus.oidc.tenant-enabled", "true",
                "quarkus.oidc.auth-server-url", "http://127.0.0.1:1/realms/pigeon",
                "quarkus.oidc.client-id", "pigeon",
                "quarkus.oidc.connection-timeout", "PT1S",
                "smallrye.jwt.sign.key.location", "privateKey.jwk",
                "pigeon.dispatch.enabled", "false");
    }
}
