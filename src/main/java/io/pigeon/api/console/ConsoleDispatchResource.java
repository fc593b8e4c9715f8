package io.pigeon.api.console;

import io.pigeon.api.Public;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.rules.Rejection;
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
 * A project's /v3 dispatch in the console: its pending and dead groups, read through the dispatch service as
 * /v3/queue serves them, and a dead group requeued or dropped after its confirmation, by a POST form checked by
 * {@link ConsolePages}.
 */
@Path("/console")
@Produces(MediaType.TEXT_HTML)
// Open to the API's bearer-token check: the console's own sign-in decides who acts (ConsoleSignIn, ConsoleIdentity).
@Public
@ConsoleSignedIn
public class ConsoleDispatchResource {

    /** The fields a dead group's form sends: its token only. */
    private static final Set<String> TOKEN_FIELD = Set.of(ConsoleForms.FIELD);

    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance dispatch(DispatchView.Dispatch view);
    }

    private final ConsolePages pages;
    private final DispatchService dispatch;

    public ConsoleDispatchResource(ConsolePages pages, DispatchService dispatch) {
        this.pages = pages;
        this.dispatch = dispatch;
    }

    @GET
    @Path("/projects/{project}/dispatch")
    public Uni<Response> dispatch(
            @PathParam("project") String project,
            @QueryParam("done") String done,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return pages.serve(project, ConsolePages.projectHref(project), cookie, null, call -> Uni.combine()
                .all()
                .unis(dispatch.pendingByDue(project), dispatch.dead(project, 0, DispatchService.MAX_GROUPS_SHOWN))
                .with((pending, dead) -> DispatchView.of(
                        call.frame(), ConsoleViews.notice(done), pending, dead, DispatchService.MAX_GROUPS_SHOWN))
                .chain(view -> ConsolePages.page(Templates.dispatch(view), call)));
    }

    @GET
    @Path("/projects/{project}/dispatch/dead/{id}/{action}")
    public Uni<Response> confirmGroup(
            @PathParam("project") String project,
            @PathParam("id") String id,
            @PathParam("action") String action,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return pages.serve(project, ConsolePages.projectHref(project) + "/dispatch", cookie, null, call -> {
            long group = groupId(id);
            boolean requeue = groupAction(action);
            return ConsolePages.page(
                    ConsolePages.Templates.confirm(DispatchView.confirmation(call, group, action, requeue)), call);
        });
    }

    @POST
    @Path("/projects/{project}/dispatch/dead/{id}/{action}")
    public Uni<Response> actOnGroup(
            @PathParam("project") String project,
            @PathParam("id") String id,
            @PathParam("action") String action,
            String raw,
            @CookieParam(ConsoleForms.COOKIE) String cookie,
            @HeaderParam("Sec-Fetch-Site") String fetchSite,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Host") String host,
            @HeaderParam("Content-Type") String contentType) {
        ConsolePages.Sender sender = new ConsolePages.Sender(cookie, fetchSite, origin, host, contentType);
        String dispatchHref = ConsolePages.projectHref(project) + "/dispatch";
        return pages.serveForm(project, dispatchHref, sender, raw, TOKEN_FIELD, (call, form) -> {
            long group = groupId(id);
            boolean requeue = groupAction(action);
            Uni<Boolean> done = requeue ? dispatch.requeue(project, group, null) : dispatch.dropDead(project, group);
            return done.map(found -> {
                if (!found) {
                    throw Rejection.notFound("Project " + project + " has no dead group " + group + ".");
                }
                return ConsolePages.redirect(dispatchHref + "?done=" + (requeue ? "requeued" : "dropped"));
            });
        });
    }

    private static long groupId(String id) {
        if (id == null || !id.matches("[0-9]{1,18}")) {
            throw Rejection.notFound("A dead group's id is a number.");
        }
        return Long.parseLong(id);
    }

    /** True for requeue, false for drop; anything else is not a page. */
    private static boolean groupAction(String action) {
        return switch (action) {
            case "requeue" -> true;
            case "drop" -> false;
            default -> throw Rejection.notFound("A dead group can be requeued or dropped.");
        };
    }
}
