package io.pigeon.console;

import io.pigeon.api.Public;
import io.pigeon.config.PigeonConfig;
import io.pigeon.rules.Rejection;
import io.pigeon.tenancy.TokenTenancy;
import io.quarkus.oidc.OidcSession;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateData;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.security.AuthenticationRedirectException;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.identity.CurrentIdentityAssociation;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;

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

    /** The page after sign-out: it needs no session, so that it does not start a sign-in at once. */
    @TemplateData
    public record SignedOut(ConsoleViews.Frame frame) {}

    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance signedOut(SignedOut view);
    }

    private final PigeonConfig config;
    private final TokenTenancy tenancy;
    private final CurrentIdentityAssociation identities;
    private final OidcSession session;
    private final ConsoleSignIn signIn;

    public ConsoleSessionResource(
            PigeonConfig config,
            TokenTenancy tenancy,
            CurrentIdentityAssociation identities,
            OidcSession session,
            ConsoleSignIn signIn) {
        this.config = config;
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

    @GET
    @Path("/sign-out")
    public Uni<Response> signOut() {
        served();
        if (!tenancy.tokensRequired()) {
            return Uni.createFrom().item(redirect("/console"));
        }
        // With a session and an end_session_endpoint, Quarkus OIDC answers with the redirect to it before this runs.
        return identities
                .getDeferredIdentity()
                // The redirect to the provider's end_session_endpoint is Quarkus's answer: kept. A session that
                // cannot be read any more is as good as ended.
                .onFailure(failure -> !(failure instanceof AuthenticationRedirectException))
                .recoverWithNull()
                .chain(identity -> identity == null || identity.isAnonymous()
                        ? Uni.createFrom().voidItem()
                        // Recorded first: the cookie cleared here may have been copied (EndedSessions).
                        : signIn.end(identity).chain(session::logout))
                .replaceWith(() -> redirect("/console/signed-out"));
    }

    @GET
    @Path("/signed-out")
    public Uni<Response> signedOut() {
        served();
        return Templates.signedOut(new SignedOut(new ConsoleViews.Frame(null, null, null, null)))
                .createUni()
                .map(html -> Response.ok(html)
                        .type(MediaType.TEXT_HTML_TYPE.withCharset("UTF-8"))
                        .header("Content-Security-Policy", ConsoleResource.CONTENT_SECURITY_POLICY)
                        .header("X-Content-Type-Options", "nosniff")
                        .header("X-Frame-Options", "DENY")
                        .header("Referrer-Policy", "no-referrer")
                        .header("Cache-Control", "no-store")
                        .build());
    }

    /** With the console off, its sign-in addresses are not served either (404, as its pages). */
    private void served() {
        ConsoleSignIn.offBecause(config).ifPresent(off -> {
            throw Rejection.notFound(off);
        });
    }

    private static Response redirect(String to) {
        return Response.seeOther(URI.create(to))
                .header("Cache-Control", "no-store")
                .build();
    }
}
