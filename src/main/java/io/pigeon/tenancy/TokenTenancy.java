package io.pigeon.tenancy;

import io.pigeon.rules.Rejection;
import io.pigeon.api.PublicEndpoints;
import io.pigeon.config.PigeonConfig;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.event.Observes;
import jakarta.json.JsonArray;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * With {@code pigeon.auth.mode=oidc}, every API call needs a valid bearer token, and the token decides the
 * project: the {@code X-Project-Id} a caller sends must be one its token lists (else 403), and with no
 * header and exactly one listed project, that project is used. The operator role may act for any project.
 * Resources then read the project header as in auth-off mode, so no resource knows which mode is on.
 * Methods marked {@link io.pigeon.api.Public} (discovery documents, /v1/health) and everything outside the
 * REST layer (/q/ health, metrics, OpenAPI) stay open.
 */
public class TokenTenancy {

    private final PigeonConfig.Auth auth;
    private final CurrentIdentityAssociation identities;
    private final boolean oidcTenantEnabled;

    public TokenTenancy(PigeonConfig config, CurrentIdentityAssociation identities,
            @ConfigProperty(name = "quarkus.oidc.tenant-enabled", defaultValue = "true") boolean oidcTenantEnabled) {
        this.auth = config.auth();
        this.identities = identities;
        this.oidcTenantEnabled = oidcTenantEnabled;
    }

    /** Refuses to start half-configured: OIDC mode without an OIDC tenant would answer every call 401. */
    void checkConfiguration(@Observes StartupEvent started) {
        if (auth.mode() == PigeonConfig.Auth.Mode.OIDC && !oidcTenantEnabled) {
            throw new IllegalStateException("pigeon.auth.mode=oidc needs quarkus.oidc.tenant-enabled=true "
                    + "(QUARKUS_OIDC_TENANT_ENABLED) and quarkus.oidc.auth-server-url (QUARKUS_OIDC_AUTH_SERVER_URL)");
        }
    }

    /**
     * Runs after routing, on the method the router matched: only a method marked public is open. The path is
     * never consulted, so every spelling the router accepts for a protected method is protected.
     */
    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Uni<Void> authorize(HttpServerRequest request, ContainerRequestContext context) {
        if (auth.mode() != PigeonConfig.Auth.Mode.OIDC) {
            // Without authentication a role is believed only where the operator said so.
            if (!auth.trustRolesHeader()) {
                request.headers().remove(Callers.ROLES_HEADER);
            }
            return Uni.createFrom().voidItem();
        }
        if (PublicEndpoints.isPublic(context)) {
            return Uni.createFrom().voidItem();
        }
        return identities.getDeferredIdentity()
                .onFailure(AuthenticationFailedException.class)
                .transform(e -> new Unauthenticated("The bearer token is not valid: it is expired, malformed, "
                        + "or not issued by the configured OIDC provider."))
                // Anything else means the token could not be checked (the provider is unreachable): no caller is
                // admitted, and the client is told to try again rather than shown an internal error.
                .onFailure(failure -> !(failure instanceof Unauthenticated))
                .transform(e -> new Rejection(Rejection.Reason.UNAVAILABLE, "The identity provider cannot be reached to check the bearer token; try again later."))
                .invoke(identity -> admit(identity, request))
                .replaceWithVoid();
    }

    private void admit(SecurityIdentity identity, HttpServerRequest request) {
        if (identity.isAnonymous()) {
            throw new Unauthenticated("This API needs a bearer token: send \"Authorization: Bearer <token>\".");
        }
        boolean operator = identity.hasRole(auth.operatorRole());
        Set<String> projects = projectsOf(identity);
        String requested = request.getHeader(Projects.HEADER);
        if (requested == null || requested.isEmpty()) {
            if (projects.size() != 1) {
                throw new Rejection(Rejection.Reason.PROJECT_MISSING, "The header X-PROJECT-ID was missing, and the token "
                        + "grants " + projects.size() + " projects: name one.");
            }
            request.headers().set(Projects.HEADER, projects.iterator().next());
        } else if (!operator && !projects.contains(requested)) {
            throw new Rejection(Rejection.Reason.FORBIDDEN, "The token does not grant access to project " + requested + ".");
        }
        // Roles come from the token only: a role header sent by the caller is not believed.
        request.headers().remove(Callers.ROLES_HEADER);
        if (operator) {
            request.headers().set(Callers.ROLES_HEADER, Callers.OPERATOR_ROLE);
        }
    }

    /** The projects the token's claim lists; a string names one project, an array several. */
    private Set<String> projectsOf(SecurityIdentity identity) {
        if (!(identity.getPrincipal() instanceof JsonWebToken token)) {
            return Set.of();
        }
        Object claim = token.getClaim(auth.projectsClaim());
        Set<String> projects = new LinkedHashSet<>();
        if (claim instanceof JsonArray array) {
            array.forEach(value -> projects.add(text(value)));
        } else if (claim instanceof Collection<?> values) {
            values.forEach(value -> projects.add(value instanceof JsonValue json ? text(json) : String.valueOf(value)));
        } else if (claim instanceof JsonString string) {
            projects.add(string.getString());
        } else if (claim instanceof String string) {
            projects.add(string);
        }
        projects.removeIf(String::isEmpty);
        return projects;
    }

    private static String text(JsonValue value) {
        return value instanceof JsonString string ? string.getString() : value.toString();
    }
}
