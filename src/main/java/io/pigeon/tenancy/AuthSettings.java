package io.pigeon.tenancy;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Who may call, and for which projects.
 *
 * <p>Who may call, and for which projects: read by the tenancy and the console's sign-in. Its own mapping, so that
 * the feature that reads these keys owns them; the keys are unchanged ({@code pigeon.auth.*}, env {@code
 * PIGEON_AUTH_*}).
 */
@ConfigMapping(prefix = "pigeon.auth")
public interface AuthSettings {

    /** {@code none}: X-Project-Id is trusted (Zaqar's auth-off case); {@code oidc}: a bearer token is required. */
    @WithDefault("none")
    Mode mode();

    /** The token claim that lists the caller's projects: a string (one project) or an array. */
    @WithDefault("projects")
    String projectsClaim();

    /** The token role that may act for any project and read /v2/health. */
    @WithDefault("pigeon-operator")
    String operatorRole();

    /**
     * With {@code mode=none} only: whether {@code X-Roles: admin} makes a caller the operator, as Zaqar does
     * with auth off. Off by default, so that a caller cannot make itself the operator by sending a header.
     */
    @WithDefault("false")
    boolean trustRolesHeader();

    enum Mode {
        NONE,
        OIDC
    }
}
