package io.pigeon.api.console;

import io.pigeon.api.Rejections;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.pigeon.rules.Rejection;
import io.pigeon.tenancy.AuthSettings;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The console's page pipeline, the one place every page of every area passes through: whether the console is served,
 * who may see the project a path names, the form checks (its reader, its token, the site it came from), the page that
 * says what was refused, and the headers every page carries. The resources of the page areas ({@code Console*Resource})
 * hold only what their pages read and do.
 */
@ApplicationScoped
public class ConsolePages {

    /** Pages are never framed, never cached, and run nothing that is not a file of this origin. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    /** The pages every area shows: a refusal, and the confirmation step before a change. */
    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance failure(ConsoleViews.Failure view);

        static native TemplateInstance confirm(ConsoleViews.Confirm view);
    }

    /** What every page of one request shares once the preamble has passed: its frame and its form token. */
    record Call(ConsoleViews.Frame frame, String token) {}

    /** What a browser sent with a form, besides the form: the token cookie and the headers that say where from. */
    record Sender(String cookie, String fetchSite, String origin, String host, String contentType) {}

    private final AuthSettings authSettings;
    private final ConsoleSettings consoleSettings;
    private final ConsoleIdentity identity;

    public ConsolePages(AuthSettings authSettings, ConsoleSettings consoleSettings, ConsoleIdentity identity) {
        this.authSettings = authSettings;
        this.consoleSettings = consoleSettings;
        this.identity = identity;
    }

    /**
     * The preamble of every page, in one place: the console is served at all, the project named by the matched path
     * (null on the chooser) is one this caller may see, and a form ({@code sent}, null for a page) carries this
     * browser's token from this origin; then {@code work} runs. Whatever any of them refuses becomes a page saying so,
     * with a link to {@code back}.
     */
    Uni<Response> serve(
            String project, String back, String cookie, ConsoleForms.Sent sent, Function<Call, Uni<Response>> work) {
        // Off, the console answers as a path nothing serves: the API's 404 document, no page, no cookie.
        requireServed(authSettings, consoleSettings);
        ConsoleViews.Frame frame = frame(project);
        String token = ConsoleForms.token(cookie);
        return guarded(frame, back, token, () -> {
            // Served only when it is on; in OIDC mode only to a user whose token the API accepts.
            identity.check();
            if (project != null) {
                // A valid project id the caller may see (pigeon.console.projects, and the user's token).
                identity.allow(project);
            }
            if (sent != null) {
                ConsoleForms.check(cookie, sent);
            }
            return work.apply(new Call(frame, token));
        });
    }

    /**
     * Serves a form's POST as {@link #serve} does, the form read by {@link ConsoleFormBody} (the console's own reader:
     * see there why not the HTTP layer's) keeping {@code fields}; a malformed form is refused on a page like any other
     * refusal, after the console and the project are found available, and nothing is done.
     */
    Uni<Response> serveForm(
            String project,
            String back,
            Sender sender,
            String raw,
            Set<String> fields,
            BiFunction<Call, ConsoleFormBody, Uni<Response>> work) {
        ConsoleFormBody form;
        try {
            ConsoleFormBody.requireFormType(sender.contentType());
            form = ConsoleFormBody.parse(raw, fields);
        } catch (Rejection malformed) {
            return serve(project, back, sender.cookie(), null, call -> Uni.createFrom()
                    .failure(malformed));
        }
        ConsoleForms.Sent sent =
                new ConsoleForms.Sent(form.get(ConsoleForms.FIELD), sender.fetchSite(), sender.origin(), sender.host());
        return serve(project, back, sender.cookie(), sent, call -> work.apply(call, form));
    }

    /**
     * {@code done}, or when it is refused, the form shown again ({@code form}, given the refusal's words) at the
     * refusal's status, so that what was typed is kept; a missing queue or project is the failure page instead.
     */
    static Uni<Response> shownAgain(Uni<Response> done, Call call, Function<String, TemplateInstance> form) {
        return done.onFailure(Rejection.class).recoverWithUni(refused -> {
            Rejection rejection = (Rejection) refused;
            if (rejection.reason() == Rejection.Reason.NOT_FOUND) {
                return Uni.createFrom().failure(rejection);
            }
            Rejections.Answer answer = Rejections.answer(rejection.reason());
            return page(form.apply(answer.title() + ": " + rejection.description()), answer.status(), call.token());
        });
    }

    /**
     * Runs {@code work}; a refusal becomes a page that says it, at the status the API would answer, with a link back.
     */
    private static Uni<Response> guarded(
            ConsoleViews.Frame frame, String back, String token, Supplier<Uni<Response>> work) {
        return Uni.createFrom()
                .<Response>deferred(work::get)
                .onFailure(Rejection.class)
                .recoverWithUni(refused -> {
                    Rejection rejection = (Rejection) refused;
                    Rejections.Answer answer = Rejections.answer(rejection.reason());
                    return page(
                            Templates.failure(new ConsoleViews.Failure(
                                    frame, answer.status(), answer.title(), rejection.description(), back)),
                            answer.status(),
                            token);
                });
    }

    /** A page rendered, with the form token's cookie set again (every page may hold a form). */
    static Uni<Response> page(TemplateInstance page, int status, String token) {
        return page.createUni().map(html -> htmlPage(status, html)
                .header("Set-Cookie", ConsoleForms.cookie(token))
                .build());
    }

    /** A page answered 200. */
    static Uni<Response> page(TemplateInstance page, Call call) {
        return page(page, 200, call.token());
    }

    /**
     * A console page's answer: the HTML with the headers every console page carries (the strict CSP, no sniffing, no
     * framing, no referrer, no caching), for the console's resources and its sign-in filter alike.
     */
    static Response.ResponseBuilder htmlPage(int status, String html) {
        return Response.status(status)
                .type(MediaType.TEXT_HTML_TYPE.withCharset("UTF-8"))
                .entity(html)
                .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                .header("X-Content-Type-Options", "nosniff")
                .header("X-Frame-Options", "DENY")
                .header("Referrer-Policy", "no-referrer")
                .header("Cache-Control", "no-store");
    }

    /** A redirect after a change or to a page's own address, never cached. */
    static Response redirect(String to) {
        return Response.seeOther(URI.create(to))
                .header("Cache-Control", "no-store")
                .build();
    }

    /** With the console off, nothing of it is served: the API's 404, as for a path nothing serves. */
    static void requireServed(AuthSettings authSettings, ConsoleSettings consoleSettings) {
        ConsoleSignIn.offBecause(authSettings, consoleSettings).ifPresent(off -> {
            throw Rejection.notFound(off);
        });
    }

    /** Nothing, once the queue is found to exist in the project; else the API's 404 for it. */
    static Uni<Void> existing(QueueService queues, String project, QueueName name) {
        return queues.exists(project, name).map(exists -> {
            if (!exists) {
                throw QueueService.queueNotFound(project, name);
            }
            return null;
        });
    }

    /** The path of a project's page (the id percent-encoded: it may hold {@code +}, {@code &}). */
    static String projectHref(String project) {
        return "/console/projects/" + ConsoleViews.segment(project);
    }

    private ConsoleViews.Frame frame(String project) {
        return new ConsoleViews.Frame(
                project, project == null ? null : projectHref(project), identity.banner(), identity.user());
    }
}
