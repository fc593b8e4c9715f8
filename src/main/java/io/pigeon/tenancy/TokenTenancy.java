package io.pigeon.tenancy;

import io.pigeon.rules.Rejection;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.json.JsonArray;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * With {@code pigeon.auth.mode=oidc}, the token decides who is calling: the {@code X-Project-Id} a caller sends
 * must be one its token lists (else 403), and with no header and exactly one listed project, that project is
 * used. The operator role may act for any project. With authentication off, the project is the one the request
 * names and the role header is believed only where the operator said so. The web layer asks this class once per
 * request, after routing.
 */
@ApplicationScoped
public class TokenTenancy {

    private final AuthSettings auth;
    private final boolean oidcTenantEnabled;

    public TokenTenancy(
            AuthSettings authSettings,
            @ConfigProperty(name = "quarkus.oidc.tenant-enabled", defaultValue = "true") boolean oidcTenantEnabled) {
        this.auth = authSettings;
        this.oidcTenantEnabled = oidcTenantEnabled;
    }

    /** Refuses to start half-configured: OIDC mode without an OIDC tenant would answer every call 401. */
    void checkConfiguration(@Observes StartupEvent started) {
        if (auth.mode() == AuthSettings.Mode.OIDC && !oidcTenantEnabled) {
            throw new IllegalStateException("pigeon.auth.mode=oidc needs quarkus.oidc.tenant-enabled=true "
                    + "(QUARKUS_OIDC_TENANT_ENABLED) and quarkus.oidc.auth-server-url (QUARKUS_OIDC_AUTH_SERVER_URL)");
        }
    }

    public boolean tokensRequired() {
        return auth.mode() == AuthSettings.Mode.OIDC;
    }

    /**
     * With authentication off: the caller a request's own {@code X-Project-Id} and {@code X-Roles} describe. As in
     * Zaqar the role header is believed, but only with {@code pigeon.auth.trust-roles-header}.
     */
    public Caller unauthenticated(String requestedProject, String rolesHeader) {
        boolean operator = auth.trustRolesHeader() && Callers.isOperator(rolesHeader);
        return new Caller(requestedProject == null || requestedProject.isEmpty() ? null : requestedProject, operator);
    }

    /**
     * The caller a verified identity may act as for {@code requestedProject} (null or empty when the request
     * names none). Anonymous: {@link Unauthenticated}; a project the token does not grant: 403. Without
     * {@code projectNeeded} (an open method) a token that grants several projects acts for none.
     */
    public Caller admit(SecurityIdentity identity, String requestedProject, boolean projectNeeded) {
        if (identity.isAnonymous()) {
            throw new Unauthenticated("This API needs a bearer token: send \"Authorization: Bearer <token>\".");
        }
        boolean operator = identity.hasRole(auth.operatorRole());
        Set<String> projects = projectsOf(identity);
        if (requestedProject == null || requestedProject.isEmpty()) {
            if (!projectNeeded && projects.size() != 1) {
                return new Caller(null, operator);
            }
            if (projects.size() != 1) {
                throw new Rejection(
                        Rejection.Reason.PROJECT_MISSING,
                        "The header X-PROJECT-ID was missing, and the "
                                + "token grants " + projects.size() + " projects"
                                + (projects.isEmpty() ? "" : " (" + String.join(", ", projects) + ")") + ": name one.");
            }
            return new Caller(projects.iterator().next(), operator);
        }
        if (!operator && !projects.contains(requestedProject)) {
            throw new Rejection(
                    Rejection.Reason.FORBIDDEN, "The token does not grant access to project " + requestedProject + ".");
        }
        return new Caller(requestedProject, operator);
    }

    /**
     * The projects a verified identity's token grants, by the same claim {@link #admit} reads (the console lists them
     * in its project chooser).
     */
    public Set<String> grantedProjects(SecurityIdentity identity) {
        return projectsOf(identity);
    }

    /** Whether a verified identity holds the operator role, as {@link #admit} decides it. */
    public boolean isOperator(SecurityIdentity identity) {
        return !identity.isAnonymous() && identity.hasRole(auth.operatorRole());
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
