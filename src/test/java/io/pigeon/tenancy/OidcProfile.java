package io.pigeon.tenancy;

import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.oidc.server.OidcWiremockTestResource;
import java.util.List;
import java.util.Map;

/**
 * Pigeon in OIDC mode against the mock OIDC server of quarkus-test-oidc-server. The server belongs to the profile,
 * not to each class, so that every class of this profile shares one Quarkus start.
 */
public class OidcProfile implements QuarkusTestProfile {

    public static final String ISSUER = "https://server.example.com";
    /** The client id, which Pigeon expects as the tokens' audience. */
    public static final String AUDIENCE = "quarkus-service-app";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.ofEntries(
                Map.entry("pigeon.auth.mode", "oidc"),
                Map.entry("pigeon.auth.operator-role", "pigeon-operator"),
                Map.entry("quarkus.oidc.tenant-enabled", "true"),
                Map.entry("quarkus.oidc.auth-server-url", "${keycloak.url}/realms/quarkus/"),
                Map.entry("quarkus.oidc.client-id", AUDIENCE),
                Map.entry("quarkus.oidc.token.issuer", ISSUER),
                Map.entry("smallrye.jwt.sign.key.location", "privateKey.jwk"),
                // The console's sign-in (its tenant "console", on /console only) is on beside the API's bearer
                // tenant, so that the classes of this profile check that the API answers as before with it.
                Map.entry("pigeon.console.session-secret", "test-console-session-secret-of-32-chars-or-more"),
                // Short, so that ZaqarSocketOidcTest sees an unauthenticated socket closed; the other tests
                // authenticate their sockets at once.
                Map.entry("pigeon.websocket.authentication-timeout", "4s"),
                // Lists of hosts and page origins, as a deployment behind an ingress sets them
                // (HostAndOriginListsTest).
                // Both add to what is served and allowed without them (localhost, addresses, Pigeon's own origin),
                // so the other classes, which call localhost without an Origin, see no change.
                Map.entry("pigeon.http.allowed-hosts", "queues.example.com,*.pigeon.example"),
                Map.entry("pigeon.websocket.allowed-origins", "https://app.example.com,http://localhost:3000"),
                // Small socket bounds, so that AnonymousSocketsOidcTest reaches them with a few dozen sockets from
                // other loopback addresses; the other classes hold a few sockets at once from 127.0.0.1.
                Map.entry("pigeon.websocket.max-sockets", "40"),
                Map.entry("pigeon.websocket.max-anonymous-sockets", "20"),
                Map.entry("pigeon.websocket.max-sockets-per-address", "10"),
                // Below the share per address, so that ZaqarSocketOidcTest fills a grant's bound from 127.0.0.1 and
                // still has room for the project's own socket.
                Map.entry("pigeon.signed-url.max-sockets-per-grant", "3"));
    }

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(OidcWiremockTestResource.class));
    }
}
