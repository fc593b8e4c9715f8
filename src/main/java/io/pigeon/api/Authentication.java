package io.pigeon.api;

import io.pigeon.tenancy.BearerTokens;
import io.pigeon.tenancy.Callers;
import io.pigeon.tenancy.SignedUrls;
import io.pigeon.tenancy.TokenTenancy;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Who is calling, decided once per request after routing, on the method the router matched: only a method
 * marked {@link Public} is open, so every spelling the router accepts for a protected method is protected. In
 * OIDC mode the token decides the project and roles ({@link TokenTenancy}); with authentication off the
 * request's own headers do; the project asked for is the {@code X-Project-Id} header's, or for a method marked
 * {@link ProjectInPath} its matched path's; a pre-signed URL's headers, when sent, decide in either mode
 * ({@link SignedRequests}). Either way the answer goes to {@link RequestCaller}, so no resource knows which mode
 * is on and no incoming header is rewritten.
 */
public class Authentication {

    private final TokenTenancy tenancy;
    private final SignedUrls signedUrls;
    private final CurrentIdentityAssociation identities;
    private final RequestCaller caller;
    private final BearerTokens bearerTokens;

    public Authentication(
            TokenTenancy tenancy,
            SignedUrls signedUrls,
            CurrentIdentityAssociation identities,
            RequestCaller caller,
            BearerTokens bearerTokens) {
        this.tenancy = tenancy;
        this.signedUrls = signedUrls;
        this.identities = identities;
        this.caller = caller;
        this.bearerTokens = bearerTokens;
    }

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION)
    public Uni<Void> authorize(HttpServerRequest request, ContainerRequestContext context) {
        // A pre-signed URL stands in for a token, for exactly the resources and methods it grants (in both modes,
        // as Zaqar checks a signature whenever one is sent).
        if (SignedRequests.isSigned(request) && !PublicEndpoints.isPublic(context)) {
            caller.resolved(SignedRequests.admit(request, context, signedUrls));
            return Uni.createFrom().voidItem();
        }
        if (!tenancy.tokensRequired()) {
            caller.resolved(tenancy.unauthenticated(
                    PathProjects.requested(context, request), request.getHeader(Callers.ROLES_HEADER)));
            return Uni.createFrom().voidItem();
        }
        if (PublicEndpoints.isPublic(context)) {
            // An open method may still show the operator more (the v2 home document's admin block): a valid token
            // counts; no token, or one that cannot be checked, is simply anonymous here.
            if (request.getHeader("Authorization") == null) {
                return Uni.createFrom().voidItem();
            }
            return apiIdentity(request)
                    .invoke(identity -> {
                        if (!identity.isAnonymous()) {
                            caller.resolved(tenancy.admit(identity, null, false));
                        }
                    })
                    .onFailure()
                    .recoverWithNull()
                    .replaceWithVoid();
        }
        // A token that could not be checked (the provider is unreachable) admits no caller: the client is told to try
        // again rather than shown an internal error.
        return BearerTokens.checked(apiIdentity(request))
                // Roles come from the token only: a role header sent by the caller is not believed.
                .invoke(identity -> caller.resolved(tenancy.admit(
                        identity,
                        PathProjects.requested(context, request),
                        !PublicEndpoints.isProjectOptional(context))))
                .replaceWithVoid();
    }

    /** The identity the request's bearer token makes, never the console's sign-in session (BearerTokens). */
    private Uni<SecurityIdentity> apiIdentity(HttpServerRequest request) {
        return bearerTokens.apiIdentity(
                identities.getDeferredIdentity(),
                request.getHeader("Authorization"),
                BearerTokens.hasSessionCookie(request.cookieMap().keySet()));
    }
}
