package io.pigeon.api.console;

import io.pigeon.config.CheckedSettings;
import io.pigeon.config.ValidSettings;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The web console at {@code /console} (docs/console.md).
 *
 * <p>The web console's switch, sign-in and page size (io.pigeon.api.console). Its own mapping, so that the feature that
 * reads these keys owns them; the keys are unchanged ({@code pigeon.console.*}, env {@code PIGEON_CONSOLE_*}).
 */
@ConfigMapping(prefix = "pigeon.console")
@ValidSettings
public interface ConsoleSettings extends CheckedSettings {

    /** The shortest session secret accepted. */
    int MIN_SESSION_SECRET_CHARACTERS = 32;

    /**
     * Whether {@code /console} is served at all. With {@code pigeon.auth.mode=oidc} its users sign in through the
     * OIDC tenant {@code console} (authorization code with PKCE), which needs {@link #sessionSecret()}.
     */
    @WithDefault("true")
    boolean enabled();

    /**
     * OIDC mode: the secret (at least 32 characters) that encrypts the console's sign-in state and session cookies
     * and binds its form tokens to a session. Required when the console is on in OIDC mode; the same on every
     * replica, so that any replica reads a session another one started.
     */
    Optional<String> sessionSecret();

    /** OIDC mode: the client the console signs in as; unset, the API's ({@code quarkus.oidc.client-id}). */
    Optional<String> clientId();

    /**
     * OIDC mode: the console client's secret; unset, the API's ({@code quarkus.oidc.credentials.secret}), and none
     * at all for a public client (PKCE protects the code without one).
     */
    Optional<String> clientSecret();

    /**
     * The projects the console may show; unset: any project (the chooser takes any id). Set, any other project's
     * pages are refused with 403, whatever the URL says.
     */
    Optional<List<String>> projects();

    /** Queues on one page of a project's table (1 to 500). */
    @WithDefault("50")
    @Min(1)
    @Max(500)
    int queuesPerPage();

    @Override
    default List<String> problems() {
        List<String> problems = new ArrayList<>();
        sessionSecret().filter(secret -> !secret.isEmpty()).ifPresent(secret -> {
            if (secret.length() < MIN_SESSION_SECRET_CHARACTERS) {
                problems.add("pigeon.console.session-secret is " + secret.length() + " characters; it needs at least "
                        + MIN_SESSION_SECRET_CHARACTERS + " (or leave it unset)");
            }
        });
        return problems;
    }
}
