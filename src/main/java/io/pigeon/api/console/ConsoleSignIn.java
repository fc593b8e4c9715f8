package io.pigeon.api.console;

import io.pigeon.rules.Rejection;
import io.pigeon.tenancy.AuthSettings;
import io.pigeon.tenancy.BearerTokens;
import io.pigeon.tenancy.EndedSessionStore;
import io.pigeon.tenancy.TokenTenancy;
import io.pigeon.tenancy.Unauthenticated;
import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.oidc.SecurityEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * The console's sign-in in OIDC mode, run before every page marked {@link ConsoleSignedIn}. The browser's session is
 * the OIDC tenant {@code console} (authorization code flow with PKCE, application.properties): without one, the request
 * is answered with that tenant's challenge, a redirect to the provider, and nothing else runs (a form sent with an
 * ended session is never carried out; the browser comes back to its confirmation page). With one, the session's access
 * token is checked by the API's own tenant, as a bearer token sent to /v2 would be, and the outcome goes to
 * {@link ConsoleIdentity}. The console's form token is bound to the session here: a page is served only with the
 * session's token in the form cookie, and a form is taken only with it, so a token from another session (one planted
 * by a sibling site, or left by another user of the browser) is refused.
 */
@ApplicationScoped
public class ConsoleSignIn {

    private static final Logger LOG = Logger.getLogger(ConsoleSignIn.class);

    /** How long past its ID token's expiry a sign-out is remembered (see {@link #forgetEndedAt}). */
    static final Duration ENDED_SESSION_MEMORY = Duration.ofDays(1);

    /** Session secrets shorter than this leave the console off: they protect every console session. */
    static final int MIN_SECRET_LENGTH = ConsoleSettings.MIN_SESSION_SECRET_CHARACTERS;

    private final AuthSettings authSettings;
    private final ConsoleSettings consoleSettings;
    private final TokenTenancy tenancy;
    private final BearerTokens bearerTokens;
    private final CurrentIdentityAssociation identities;
    private final ConsoleIdentity console;
    private final EndedSessionStore ended;

    public ConsoleSignIn(
            AuthSettings authSettings,
            ConsoleSettings consoleSettings,
            TokenTenancy tenancy,
            BearerTokens bearerTokens,
            CurrentIdentityAssociation identities,
            ConsoleIdentity console,
            EndedSessionStore ended) {
        this.authSettings = authSettings;
        this.consoleSettings = consoleSettings;
        this.tenancy = tenancy;
        this.bearerTokens = bearerTokens;
        this.identities = identities;
        this.console = console;
        this.ended = ended;
    }

    /**
     * Why the console is not served, or empty when it is: turned off, or in OIDC mode without a session secret of at
     * least {@value #MIN_SECRET_LENGTH} characters (every replica needs the same one to read the sessions the others
     * made). Without a secret the console stays off rather than Pigeon refusing to start: an OIDC deployment that
     * predates the console keeps running, and says why at start (see {@link #started}).
     */
    static Optional<String> offBecause(AuthSettings.Mode mode, boolean consoleOn, Optional<String> sessionSecret) {
        if (!consoleOn) {
            return Optional.of("The console is off (pigeon.console.enabled=false).");
        }
        if (mode == AuthSettings.Mode.OIDC && sessionSecret.orElse("").length() < MIN_SECRET_LENGTH) {
            return Optional.of("The console is off: in OIDC mode its sign-in needs pigeon.console.session-secret"
                    + " (PIGEON_CONSOLE_SESSION_SECRET), at least " + MIN_SECRET_LENGTH
                    + " characters, the same on every replica.");
        }
        return Optional.empty();
    }

    /** {@link #offBecause} for this deployment. */
    static Optional<String> offBecause(AuthSettings authSettings, ConsoleSettings consoleSettings) {
        return offBecause(authSettings.mode(), consoleSettings.enabled(), consoleSettings.sessionSecret());
    }

    void started(@Observes StartupEvent started) {
        if (consoleSettings.enabled()) {
            offBecause(authSettings, consoleSettings).ifPresent(LOG::warn);
        }
    }

    @ConsoleSignedIn
    @ServerRequestFilter(priority = Priorities.AUTHENTICATION + 10)
    public Uni<Response> signIn(HttpServerRequest request) {
        if (!tenancy.tokensRequired()
                || offBecause(authSettings, consoleSettings).isPresent()) {
            // Authentication off: ConsoleIdentity needs nothing. Console off: its pages answer 404 by themselves.
            return Uni.createFrom().nullItem();
        }
        return identities
                .getDeferredIdentity()
                .onFailure(AuthenticationFailedException.class)
                .transform(ended -> new UnauthorizedException())
                .chain(session -> {
                    if (session.isAnonymous()) {
                        // The tenant's challenge: a redirect to the provider, back to this page's GET afterwards.
                        return Uni.createFrom().failure(new UnauthorizedException());
                    }
                    return ended.ended(sessionKey(session))
                            .chain(signedOut -> signedOut
                                    // A copy of a session cookie kept past its sign-out: the tenant's challenge, as
                                    // without one.
                                    ? Uni.createFrom().<Response>failure(new UnauthorizedException())
                                    : signedIn(request, session));
                });
    }

    /** The rest of {@link #signIn} for a session not ended: the API's tenant checks its access token. */
    private Uni<Response> signedIn(HttpServerRequest request, SecurityIdentity session) {
        String user = session.getPrincipal().getName();
        AccessTokenCredential access = session.getCredential(AccessTokenCredential.class);
        if (access == null) {
            console.refused(user, refusedToken("the provider returned no access token"));
            return Uni.createFrom().nullItem();
        }
        return BearerTokens.checked(bearerTokens.identify(access.getToken()))
                .onFailure(Unauthenticated.class)
                .recoverWithItem(refused -> {
                    console.refused(user, refusedToken(refused.getMessage()));
                    return null;
                })
                .onFailure(Rejection.class)
                .recoverWithItem(unavailable -> {
                    console.refused(user, (Rejection) unavailable);
                    return null;
                })
                .chain(token -> {
                    if (token == null) {
                        // The pages say why (ConsoleIdentity.check), with a way to sign out.
                        return Uni.createFrom().nullItem();
                    }
                    console.signedIn(user, token);
                    Uni<Response> instead = formToken(request, session);
                    return instead == null ? Uni.createFrom().nullItem() : instead;
                });
    }

    private static Rejection refusedToken(String why) {
        return new Rejection(
                Rejection.Reason.FORBIDDEN,
                "You are signed in, but the API does not accept your access token (" + why + "): sign out and sign"
                        + " in again, or ask the operator to have the provider issue tokens for this service.");
    }

    /**
     * Null to go on; else the answer instead of the page: a page shown before the browser holds this session's form
     * token is answered with a redirect to itself that sets it, and a form sent without it is refused.
     */
    private Uni<Response> formToken(HttpServerRequest request, SecurityIdentity session) {
        String bound = boundToken(session);
        Cookie cookie = request.getCookie(ConsoleForms.COOKIE);
        String held = cookie == null ? null : cookie.getValue();
        if (held != null
                && MessageDigest.isEqual(
                        held.getBytes(StandardCharsets.US_ASCII), bound.getBytes(StandardCharsets.US_ASCII))) {
            return null;
        }
        if ("GET".equals(request.method().name())
                || "HEAD".equals(request.method().name())) {
            return Uni.createFrom()
                    .item(Response.seeOther(URI.create(samePage(request)))
                            .header("Cache-Control", "no-store")
                            .header("Set-Cookie", ConsoleForms.cookie(bound))
                            .build());
        }
        return ConsolePages.Templates.failure(new ConsoleViews.Failure(
                        new ConsoleViews.Frame(null, null, null, console.user()),
                        403,
                        "Forbidden",
                        "The form's token (field \"" + ConsoleForms.FIELD + "\") was not issued for your"
                                + " current sign-in: reload the page and submit the form again.",
                        "/console"))
                .createUni()
                .map(html -> ConsolePages.htmlPage(403, html).build());
    }

    /** The page asked for, as a path of this console (never another host, whatever the request line held). */
    private static String samePage(HttpServerRequest request) {
        String path = request.path();
        if (path == null || !path.startsWith("/console") || path.startsWith("//")) {
            return "/console";
        }
        String query = request.query();
        return query == null || query.isEmpty() ? path : path + "?" + query;
    }

    /**
     * The session's form token: an HMAC, under the session secret, of who signed in and when (the ID token's issuer,
     * subject, session id or issue time), so it changes with every sign-in and no one without the secret can make it.
     */
    private String boundToken(SecurityIdentity session) {
        StringBuilder key = new StringBuilder("pigeon-console-form\n");
        if (session.getPrincipal() instanceof JsonWebToken idToken) {
            Object sid = idToken.getClaim("sid");
            key.append(idToken.getIssuer())
                    .append('\n')
                    .append(idToken.getSubject())
                    .append('\n')
                    .append(sid == null ? "" : sid.toString())
                    .append('\n')
                    .append(idToken.getIssuedAtTime());
        } else {
            key.append(session.getPrincipal().getName());
        }
        return hmac(key.toString());
    }

    /**
     * The key a sign-out records for the session (EndedSessionStore): an HMAC of the ID token's issuer and subject and
     * the provider's session id ({@code sid}), which a refresh of the tokens keeps, or without one the ID token's
     * issue time. Null for a session without an ID token of its own.
     */
    String sessionKey(SecurityIdentity session) {
        if (!(session.getPrincipal() instanceof JsonWebToken idToken)) {
            return null;
        }
        Object sid = idToken.getClaim("sid");
        return hmac("pigeon-console-session\n" + idToken.getIssuer() + '\n' + idToken.getSubject() + '\n'
                + (sid == null ? "iat " + idToken.getIssuedAtTime() : "sid " + sid));
    }

    /**
     * Until when a sign-out of {@code session} is remembered: a day past its ID token's expiry, longer than Quarkus
     * keeps the session cookie past it (authentication.session-age-extension) or a provider's usual session.
     */
    static Instant forgetEndedAt(SecurityIdentity session) {
        long expires = session.getPrincipal() instanceof JsonWebToken idToken ? idToken.getExpirationTime() : 0;
        Instant base = expires > 0 ? Instant.ofEpochSecond(expires) : Instant.now();
        return (base.isBefore(Instant.now()) ? Instant.now() : base).plus(ENDED_SESSION_MEMORY);
    }

    /** Records the session as ended (a sign-out): a copy of its cookie is sent through sign-in from then on. */
    Uni<Void> end(SecurityIdentity session) {
        String key = sessionKey(session);
        return key == null ? Uni.createFrom().voidItem() : ended.end(key, forgetEndedAt(session));
    }

    /**
     * A sign-out that Quarkus OIDC carries out itself (RP-initiated, to the provider's end_session_endpoint, before
     * any resource runs) is recorded here, from the security event it fires with the session being ended.
     */
    void signedOut(@Observes SecurityEvent event) {
        if (event.getEventType() == SecurityEvent.Type.OIDC_LOGOUT_RP_INITIATED
                && event.getSecurityIdentity() != null
                && offBecause(authSettings, consoleSettings).isEmpty()) {
            end(event.getSecurityIdentity())
                    .subscribe()
                    .with(
                            done -> {},
                            failure -> LOG.warnf(
                                    "Could not record a console sign-out; a copy of its session cookie stays usable"
                                            + " until it expires: %s",
                                    failure.toString()));
        }
    }

    private String hmac(String text) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(
                    consoleSettings.sessionSecret().orElseThrow().getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] tag = mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(tag);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }
}
