package io.pigeon.api.console;

import io.pigeon.tenancy.OidcProfile;
import java.util.HashMap;
import java.util.Map;

/**
 * OIDC mode with a provider that advertises no end_session_endpoint, as some do (Dex, for one): the console's tenant
 * is given the mock provider's endpoints by hand, without discovery and without an end-session path.
 */
public class NoEndSessionProfile extends OidcProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> overrides = new HashMap<>(super.getConfigOverrides());
        overrides.put("quarkus.oidc.console.discovery-enabled", "false");
        overrides.put("quarkus.oidc.console.authorization-path", "protocol/openid-connect/auth");
        overrides.put("quarkus.oidc.console.token-path", "protocol/openid-connect/token");
        overrides.put("quarkus.oidc.console.jwks-path", "protocol/openid-connect/certs");
        return overrides;
    }
}
