package io.pigeon.tenancy;

import io.pigeon.rules.Rejection;
import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.oidc.IdTokenCredential;
import io.quarkus.oidc.TenantIdentityProvider;
import io.quarkus.oidc.TokenIntrospection;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.time.Instant;
import java.util.Set;
import org.eclipse.microprofile.jwt.JsonWebToken;

/**
 * Bearer tokens that arrive outside an HTTP request's {@code Authorization} header (a WebSocket's {@code authenticate}
 * frame, a KEDA scaler's metadata): checked by Quarkus OIDC exactly as an HTTP bearer token is (signature, issuer,
 * audience, expiry), and the outcome of a check, for any edge, in the words the HTTP edge uses.
 */
@ApplicationScoped
public class BearerTokens {

    private static final String BEARER = "Bearer ";

    /** Quarkus OIDC's session cookie of the console's tenant ({@code quarkus.oidc.console}, application.properties). */
    private static final String SESSION_COOKIE = "q_session_console";

    private final Instance<TenantIdentityProvider> identities;

    public BearerTokens(Instance<TenantIdentityProvider> identities) {
        this.identities = identities;
    }

    /**
     * The identity {@code token} stands for. Fails with {@link AuthenticationFailedException} when the token is
     * refused; any other failure means it could not be checked (the provider cannot be reached).
     */
    public Uni<SecurityIdentity> identify(String token) {
        return Uni.createFrom().deferred(() -> identities.get().authenticate(new AccessTokenCredential(token)));
    }

    /**
     * A check's outcome as every edge answers it: a refused token is {@link Unauthenticated}; a token that could not be
     * checked is {@link Rejection.Reason#UNAVAILABLE} (try again), never an internal error.
     */
    public static Uni<SecurityIdentity> checked(Uni<SecurityIdentity> identity) {
        return identity.onFailure(AuthenticationFailedException.class)
                .transform(e -> new Unauthenticated("The bearer token is not valid: it is expired, malformed, "
                        + "or not issued by the configured OIDC provider."))
                .onFailure(failure -> !(failure instanceof Unauthenticated))
                .transform(e -> new Rejection(
                        Rejection.Reason.UNAVAILABLE,
                        "The identity provider cannot be reached to check the bearer token; try again later."));
    }

    /**
     * The caller's identity as the API takes it: made by the request's bearer token ({@code authorization}, the
     * header), from {@code deferred}, the identity Quarkus OIDC made for the request. Quarkus OIDC picks the console's
     * tenant by its session cookie on any path, so a request to the API that carried that cookie was given the sign-in
     * session's identity (which carries an ID token, never sent as a bearer token), or failed when the cookie could not
     * be read: the cookie alone was taken as a caller, and a bearer token beside it was ignored or blamed. With such a
     * cookie ({@code sessionCookie}), the session is set aside and the bearer token is checked by the API's tenant;
     * without a bearer token the request is refused (401) as one with no credential.
     */
    public Uni<SecurityIdentity> apiIdentity(
            Uni<SecurityIdentity> deferred, String authorization, boolean sessionCookie) {
        if (!sessionCookie) {
            return deferred;
        }
        return deferred.onFailure(AuthenticationFailedException.class)
                .recoverWithItem(unreadable -> null)
                .chain(identity -> {
                    if (identity != null
                            && (identity.isAnonymous() || identity.getCredential(IdTokenCredential.class) == null)) {
                        return Uni.createFrom().item(identity);
                    }
                    if (authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
                        return identify(authorization.substring(BEARER.length()).strip());
                    }
                    return Uni.createFrom()
                            .failure(new Unauthenticated("The API takes a bearer token in the Authorization header; a"
                                    + " console sign-in session is not one."));
                });
    }

    /** Whether the request carries the console tenant's session cookie (whole, or in chunks). */
    public static boolean hasSessionCookie(Set<String> cookieNames) {
        return cookieNames.stream().anyMatch(name -> name.startsWith(SESSION_COOKIE));
    }

    /** When the token expires: a JWT's {@code exp}, or what the provider's introspection said of an opaque one. */
    public static Instant expiryOf(SecurityIdentity identity) {
        if (identity.getPrincipal() instanceof JsonWebToken jwt && jwt.getExpirationTime() > 0) {
            return Instant.ofEpochSecond(jwt.getExpirationTime());
        }
        if (identity.getAttribute("introspection") instanceof TokenIntrospection introspection) {
            Long exp = introspection.getLong("exp");
            if (exp != null && exp > 0) {
                return Instant.ofEpochSecond(exp);
            }
        }
        return null;
    }
}
