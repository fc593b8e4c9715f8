package io.pigeon.api.console;

import io.pigeon.api.Public;
import io.pigeon.tenancy.AuthSettings;
import io.pigeon.tenancy.TokenTenancy;
import io.quarkus.oidc.IdTokenCredential;
import io.quarkus.oidc.OidcConfigurationMetadata;
import io.quarkus.oidc.OidcSession;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateData;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The console's sign-in and sign-out addresses in OIDC mode (docs/console.md, Sign-in). Each asks for the console
 * tenant's identity, which is what lets Quarkus OIDC act on them: on {@code /console/signed-in}, the redirect URI
 * registered at the provider, it exchanges the code (with the PKCE verifier) and sends the browser back to the page it
 * first asked for; on {@code /console/sign-out} it ends the session and, when the provider's discovery names an
 * end_session_endpoint, sends the browser there (RP-initiated logout), which returns to {@code /console/signed-out}.
 * Without such an endpoint the session cookie is cleared here. Open to the API's bearer-token check, as the console's
 * pages are.
 */
@Path("/console")
@Produces(MediaType.TEXT_HTML)
@Public
public class ConsoleSessionResource {

    /** Where Quarkus OIDC keeps the tenant's discovery document on the identity it makes. */
    private static final String CONFIGURATION_METADATA = "configuration-metadata";

    /** The page after sign-out: it needs no session, so that it does not start a sign-in at once. */
    @TemplateData
    public record SignedOut(ConsoleViews.Frame frame) {}

    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance signedOut(SignedOut view);
    }

    private final AuthSettings authSettings;
    private final ConsoleSettings consoleSettings;
    private final TokenTenancy tenancy;
    private final CurrentIdentityAssociation identities;
    private final OidcSession session;
    private final ConsoleSignIn signIn;

    public ConsoleSessionResource(
            AuthSettings authSettings,
            ConsoleSettings consoleSettings,
            TokenTenancy tenancy,
            CurrentIdentityAssociation identities,
            OidcSession session,
            ConsoleSignIn signIn) {
        this.authSettings = authSettings;
        this.consoleSettings = consoleSettings;
        this.tenancy = tenancy;
        this.identities = identities;
        this.session = session;
        this.signIn = signIn;
    }

    /** Quarkus OIDC answers the provider's redirect before this runs; reached otherwise, it goes to the chooser. */
    @GET
    @Path("/signed-in")
    public Uni<Response> signedIn() {
        served();
        if (!tenancy.tokensRequired()) {
            return Uni.createFrom().item(redirect("/console"));
        }
        return identities.getDeferredIdentity().map(identity -> {
            if (identity.isAnonymous()) {
                throw new UnauthorizedException();
            }
            return redirect("/console");
        });
    }

    /**
     * Ends the session: recorded as ended (EndedSessionStore), its cookie cleared, then, when the provider's discovery
     * names an end_session_endpoint, the browser is sent there (RP-initiated logout, the ID token as hint, back to
     * {@code /console/signed-out}); otherwise straight to that page. Done here rather than by Quarkus OIDC's
     * {@code logout.path}, which stops the whole application at start when the provider names no such endpoint.
     * A sign-out asked for from another site is refused, as a form from there would be.
     */
    @GET
    @Path("/sign-out")
    public Uni<Response> signOut(
            @HeaderParam("Sec-Fetch-Site") String fetchSite,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Host") String host,
            @Context UriInfo uri) {
        served();
        if (!tenancy.tokensRequired()) {
            return Uni.createFrom().item(redirect("/console"));
        }
        ConsoleForms.checkSite(fetchSite, origin, host);
        return identities
                .getDeferredIdentity()
                // A session that cannot be read any more is as good as ended.
                .onFailure()
                .recoverWithNull()
                .chain(identity -> {
                    if (identity == null || identity.isAnonymous()) {
                        return Uni.createFrom().item(redirect("/console/signed-out"));
                    }
                    String endSession = endSessionUri(identity);
                    IdTokenCredential idToken = identity.getCredential(IdTokenCredential.class);
                    // Recorded first: the cookie cleared here may have been copied.
                    return signIn.end(identity).chain(session::logout).map(ended -> {
                        if (endSession == null || idToken == null) {
                            return redirect("/console/signed-out");
                        }
                        String back = uri.getBaseUriBuilder()
                                .path("console/signed-out")
                                .build()
                                .toString();
                        return redirect(endSession + (endSession.contains("?") ? "&" : "?") + "id_token_hint="
                                + encoded(idToken.getToken()) + "&post_logout_redirect_uri=" + encoded(back));
                    });
                });
    }

    /** The provider's end_session_endpoint as its discovery document names it; null when it names none. */
    private static String endSessionUri(SecurityIdentity identity) {
        Object metadata = identity.getAttribute(CONFIGURATION_METADATA);
        return metadata instanceof OidcConfigurationMetadata discovered ? discovered.getEndSessionUri() : null;
    }

    private static String encoded(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    @GET
    @Path("/signed-out")
    public Uni<Response> signedOut() {
        served();
        return Templates.signedOut(new SignedOut(new ConsoleViews.Frame(null, null, null, null)))
                .createUni()
                .map(html -> ConsolePages.htmlPage(200, html).build());
    }

    /** With the console off, its sign-in addresses are not served either (404, as its pages). */
    private void served() {
        ConsolePages.requireServed(authSettings, consoleSettings);
    }

    private static Response redirect(String to) {
        return ConsolePages.redirect(to);
    }
}
