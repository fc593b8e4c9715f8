package io.pigeon.api.console;

import io.pigeon.accesskeys.AccessKeyService;
import io.pigeon.api.Public;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Set;

/**
 * A project's SQS access keys in the console: the list (never a secret), a new key made by a form, whose secret the
 * answer to that form shows once (a page, not a redirect, so that the secret is in no address and no history), and a
 * key revoked by a form. The same service as {@code /v2/access-keys}; every form is checked by {@link ConsolePages}.
 */
@Path("/console")
@Produces(MediaType.TEXT_HTML)
// Open to the API's bearer-token check: the console's own sign-in decides who acts (ConsoleSignIn, ConsoleIdentity).
@Public
@ConsoleSignedIn
public class ConsoleAccessKeyResource {

    /** The fields these forms send: their token only. */
    private static final Set<String> TOKEN_FIELD = Set.of(ConsoleForms.FIELD);

    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance accessKeys(AccessKeysView.Keys view);
    }

    private final ConsolePages pages;
    private final AccessKeyService keys;

    public ConsoleAccessKeyResource(ConsolePages pages, AccessKeyService keys) {
        this.pages = pages;
        this.keys = keys;
    }

    @GET
    @Path("/projects/{project}/access-keys")
    public Uni<Response> list(
            @PathParam("project") String project,
            @QueryParam("done") String done,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return pages.serve(project, ConsolePages.projectHref(project), cookie, null, call -> keys.list(project)
                .map(listed -> AccessKeysView.of(call, ConsoleViews.notice(done), null, listed))
                .chain(view -> ConsolePages.page(Templates.accessKeys(view), call)));
    }

    @POST
    @Path("/projects/{project}/access-keys")
    public Uni<Response> create(
            @PathParam("project") String project,
            String raw,
            @CookieParam(ConsoleForms.COOKIE) String cookie,
            @HeaderParam("Sec-Fetch-Site") String fetchSite,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Host") String host,
            @HeaderParam("Content-Type") String contentType) {
        ConsolePages.Sender sender = new ConsolePages.Sender(cookie, fetchSite, origin, host, contentType);
        return pages.serveForm(
                project, AccessKeysView.href(project), sender, raw, TOKEN_FIELD, (call, form) -> keys.create(project)
                        .chain(created ->
                                keys.list(project).map(listed -> AccessKeysView.of(call, null, created, listed)))
                        .chain(view -> ConsolePages.page(Templates.accessKeys(view), 201, call.token())));
    }

    @POST
    @Path("/projects/{project}/access-keys/{key}/revoke")
    public Uni<Response> revoke(
            @PathParam("project") String project,
            @PathParam("key") String key,
            String raw,
            @CookieParam(ConsoleForms.COOKIE) String cookie,
            @HeaderParam("Sec-Fetch-Site") String fetchSite,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Host") String host,
            @HeaderParam("Content-Type") String contentType) {
        ConsolePages.Sender sender = new ConsolePages.Sender(cookie, fetchSite, origin, host, contentType);
        String back = AccessKeysView.href(project);
        return pages.serveForm(project, back, sender, raw, TOKEN_FIELD, (call, form) -> keys.revoke(project, key)
                .map(ignored -> ConsolePages.redirect(back + "?done=revoked")));
    }
}
