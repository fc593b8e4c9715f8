package io.pigeon.api.console;

import io.pigeon.rules.Rejection;
import io.pigeon.tenancy.Projects;
import io.pigeon.tenancy.TokenTenancy;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.RequestScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Who the console acts for in this request, and which projects it may show. With authentication off, anyone, for any
 * project (or those pigeon.console.projects names). In OIDC mode, the signed-in user, with exactly the rights the API
 * gives their access token: {@link ConsoleSignIn} has the API's own tenant check that token, and every decision here is
 * {@link TokenTenancy}'s, so the console can never reach a project the same token could not reach through the API.
 */
@RequestScoped
public class ConsoleIdentity {

    private final ConsoleSettings consoleSettings;
    private final TokenTenancy tenancy;

    /** The access token's identity as the API's tenant verified it; null with authentication off. */
    private SecurityIdentity token;
    /** The name the provider gives the user (the ID token's), shown on every page. */
    private String user;
    /** Why the API does not accept the user's access token; null when it does. */
    private Rejection refusal;

    public ConsoleIdentity(ConsoleSettings consoleSettings, TokenTenancy tenancy) {
        this.consoleSettings = consoleSettings;
        this.tenancy = tenancy;
    }

    void signedIn(String user, SecurityIdentity token) {
        this.user = user;
        this.token = token;
    }

    void refused(String user, Rejection refusal) {
        this.user = user;
        this.refusal = refusal;
    }

    /** Whether users sign in (OIDC mode), rather than anyone acting for anyone. */
    boolean signsIn() {
        return tenancy.tokensRequired();
    }

    /** The signed-in user's name; null with authentication off. */
    String user() {
        return user;
    }

    /** Refuses every page when the API would refuse the user's token (expired, another audience, provider down). */
    void check() {
        if (refusal != null) {
            throw refusal;
        }
        if (signsIn() && token == null) {
            // ConsoleSignIn runs before every page that acts for someone; a page reached without it shows nothing.
            throw new Rejection(Rejection.Reason.FORBIDDEN, "This page needs a signed-in user.");
        }
    }

    /**
     * Refuses (403) a project the caller may not see: a malformed id (400), one outside pigeon.console.projects when
     * it names some, and in OIDC mode one the user's token does not grant (as the API answers it).
     */
    void allow(String project) {
        Projects.required(project);
        Optional<List<String>> listed = consoleSettings.projects();
        if (listed.isPresent() && !listed.get().contains(project)) {
            throw new Rejection(
                    Rejection.Reason.FORBIDDEN,
                    "This console shows only the projects pigeon.console.projects names; this is not one of them.");
        }
        if (signsIn()) {
            check();
            tenancy.admit(token, project, true);
        }
    }

    /** The projects the chooser lists: those the token grants (within pigeon.console.projects), or those listed. */
    List<String> projects() {
        Optional<List<String>> listed = consoleSettings.projects();
        if (!signsIn()) {
            return listed.orElse(List.of());
        }
        check();
        List<String> granted = new ArrayList<>(tenancy.grantedProjects(token));
        listed.ifPresent(granted::retainAll);
        return granted;
    }

    /** Whether the chooser takes any project id: with authentication off and no list, or for the operator. */
    boolean anyProject() {
        if (consoleSettings.projects().isPresent()) {
            return false;
        }
        return !signsIn() || (token != null && tenancy.isOperator(token));
    }

    /**
     * Whether the caller is the operator, as the API decides it for its operator-only routes (pools, flavors): signed
     * in, the access token's role; with authentication off, the API's rule for that mode, which believes
     * {@code X-Roles: admin} ({@code rolesHeader}) only with {@code pigeon.auth.trust-roles-header} (docs/security.md).
     */
    boolean operator(String rolesHeader) {
        if (signsIn()) {
            check();
            return tenancy.isOperator(token);
        }
        return tenancy.unauthenticated(null, rolesHeader).operator();
    }

    /** The banner of every page: with authentication off, that anyone can act; signed in, nothing (the user shows). */
    String banner() {
        if (signsIn()) {
            return null;
        }
        return consoleSettings.projects().isEmpty()
                ? "Authentication is off (pigeon.auth.mode=none): anyone who can reach this console can see and"
                        + " change every queue of every project."
                : "Authentication is off (pigeon.auth.mode=none): anyone who can reach this console can see and"
                        + " change every queue of the projects it shows.";
    }
}
