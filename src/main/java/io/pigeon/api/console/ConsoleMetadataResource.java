package io.pigeon.api.console;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.Public;
import io.pigeon.config.PigeonConfig;
import io.pigeon.json.StrictJson;
import io.pigeon.queue.ClaimWaitSettings;
import io.pigeon.queue.IdempotencySettings;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.DatabaseFailures;
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
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Map;

/**
 * The console's forms that write a queue and its metadata: a new queue, created as the API's v2 {@code PUT} does, and
 * an existing queue's metadata replaced. Each change is a POST form checked by {@link ConsolePages}; its document is
 * made by {@link MetadataForms} and read by the API's own reader, so a bad value is refused with the API's words.
 */
@Path("/console")
@Produces(MediaType.TEXT_HTML)
// Open to the API's bearer-token check: the console's own sign-in decides who acts (ConsoleSignIn, ConsoleIdentity).
@Public
@ConsoleSignedIn
public class ConsoleMetadataResource {

    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance metadata(MetadataForms.MetadataForm view);

        static native TemplateInstance newQueue(MetadataForms.NewQueue view);
    }

    private final ConsolePages pages;
    private final QueueService queues;
    private final MetadataForms forms;

    public ConsoleMetadataResource(
            ConsolePages pages,
            PigeonConfig config,
            ClaimWaitSettings claimWaitSettings,
            IdempotencySettings idempotencySettings,
            QueueService queues) {
        this.pages = pages;
        this.queues = queues;
        this.forms = new MetadataForms(config, claimWaitSettings, idempotencySettings);
    }

    @GET
    @Path("/projects/{project}/queues/{queue}/metadata")
    public Uni<Response> metadataForm(
            @PathParam("project") String project,
            @PathParam("queue") String queue,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return pages.serve(project, ConsolePages.projectHref(project), cookie, null, call -> {
            QueueName name = QueueName.of(queue);
            return queues.metadata(project, name).chain(found -> {
                ObjectNode stored =
                        StrictJson.readStoredObject(found.orElseThrow(() -> QueueService.queueNotFound(project, name)));
                Map<String, String> values = MetadataForms.takenOut(stored);
                return ConsolePages.page(
                        Templates.metadata(
                                forms.metadataForm(call, name.value(), null, ConsoleViews.readable(stored), values)),
                        call);
            });
        });
    }

    /** The form that creates a queue in the project. */
    @GET
    @Path("/projects/{project}/new-queue")
    public Uni<Response> newQueueForm(
            @PathParam("project") String project, @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return pages.serve(
                project,
                ConsolePages.projectHref(project),
                cookie,
                null,
                call -> ConsolePages.page(Templates.newQueue(MetadataForms.newQueueForm(call, null, "", "")), call));
    }

    /**
     * Creates the queue as the API's v2 {@code PUT} does (QueueService: the name's rules, the queue quota, the reserved
     * attributes' bounds), then shows it; a queue of that name already there is a 409, left as it is. A refusal shows
     * the form again as typed, with the refusal; nothing is created.
     */
    @POST
    @Path("/projects/{project}/new-queue")
    public Uni<Response> createQueue(
            @PathParam("project") String project,
            String raw,
            @CookieParam(ConsoleForms.COOKIE) String cookie,
            @HeaderParam("Sec-Fetch-Site") String fetchSite,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Host") String host,
            @HeaderParam("Content-Type") String contentType) {
        ConsolePages.Sender sender = new ConsolePages.Sender(cookie, fetchSite, origin, host, contentType);
        String projectHref = ConsolePages.projectHref(project);
        return pages.serveForm(project, projectHref, sender, raw, MetadataForms.NEW_QUEUE_FIELDS, (call, form) -> {
            String name = form.get("name") == null ? "" : form.get("name");
            String metadata = form.get("metadata") == null ? "" : form.get("metadata");
            Uni<Response> done = Uni.createFrom()
                    .deferred(() -> {
                        QueueName queue = QueueName.of(name);
                        return queues.create(project, queue, forms.document(metadata, Map.of()))
                                .map(created -> {
                                    if (!created) {
                                        throw new Rejection(
                                                Rejection.Reason.CONFLICT,
                                                "Project " + project + " has a queue " + queue.value()
                                                        + " already; it is left as it is.");
                                    }
                                    return ConsolePages.redirect(projectHref + "/queues/" + queue.value());
                                });
                    })
                    .onFailure(failure -> DatabaseFailures.refusedValue(failure) != null)
                    .transform(
                            failure -> Rejection.invalidParameter("metadata", DatabaseFailures.refusedValue(failure)));
            return ConsolePages.shownAgain(
                    done,
                    call,
                    refusal -> Templates.newQueue(MetadataForms.newQueueForm(call, refusal, name, metadata)));
        });
    }

    /**
     * Replaces the queue's metadata with the form's: the JSON text with the reserved fields set into it, read by the
     * API's own metadata reader (its size bound) and stored by the queue service, which checks every reserved
     * attribute's bound before it writes. A refusal shows the form again as typed, with the refusal; nothing changed.
     */
    @POST
    @Path("/projects/{project}/queues/{queue}/metadata")
    public Uni<Response> editMetadata(
            @PathParam("project") String project,
            @PathParam("queue") String queue,
            String raw,
            @CookieParam(ConsoleForms.COOKIE) String cookie,
            @HeaderParam("Sec-Fetch-Site") String fetchSite,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Host") String host,
            @HeaderParam("Content-Type") String contentType) {
        ConsolePages.Sender sender = new ConsolePages.Sender(cookie, fetchSite, origin, host, contentType);
        String projectHref = ConsolePages.projectHref(project);
        return pages.serveForm(project, projectHref, sender, raw, MetadataForms.METADATA_FIELDS, (call, form) -> {
            QueueName name = QueueName.of(queue);
            String text = form.get("metadata");
            Map<String, String> typed = MetadataForms.typed(form);
            Uni<Response> done = Uni.createFrom()
                    .deferred(() -> queues.replaceMetadata(project, name, forms.document(text, typed)))
                    // A value the database refuses (a NUL character, a number past jsonb's) is the form's, refused as
                    // the API refuses it, and shown on the form with the rest.
                    .onFailure(failure -> DatabaseFailures.refusedValue(failure) != null)
                    .transform(
                            failure -> Rejection.invalidParameter("metadata", DatabaseFailures.refusedValue(failure)))
                    .map(replaced -> {
                        if (!replaced) {
                            throw QueueService.queueNotFound(project, name);
                        }
                        return ConsolePages.redirect(projectHref + "/queues/" + name.value() + "?done=metadata");
                    });
            return ConsolePages.shownAgain(
                    done,
                    call,
                    refusal -> Templates.metadata(
                            forms.metadataForm(call, name.value(), refusal, text == null ? "" : text, typed)));
        });
    }
}
