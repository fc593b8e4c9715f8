package io.pigeon.api.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.ApiVersion;
import io.pigeon.api.Public;
import io.pigeon.api.read.JsonBodyReader;
import io.pigeon.api.read.MessagePostReader;
import io.pigeon.api.read.PurgeReader;
import io.pigeon.api.read.RedriveReader;
import io.pigeon.message.MessageService;
import io.pigeon.message.NewMessage;
import io.pigeon.purge.QueuePurge;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.pigeon.redrive.RedriveService;
import io.pigeon.rules.Rejection;
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
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/**
 * The changes a queue's page offers (post a test message, purge, delete, redrive), each a confirmation page and the
 * POST form it sends, checked by {@link ConsolePages}. The form's values are read by the API's own readers into the
 * documents the API takes, so a bad value is refused with the same words (and status) as through the API, shown on
 * the confirmation page with what was typed.
 */
@Path("/console")
@Produces(MediaType.TEXT_HTML)
// Open to the API's bearer-token check: the console's own sign-in decides who acts (ConsoleSignIn, ConsoleIdentity).
@Public
@ConsoleSignedIn
public class ConsoleActionResource {

    private final ConsolePages pages;
    private final QueueService queues;
    private final MessageService messages;
    private final RedriveService redrive;
    private final QueuePurge purge;

    public ConsoleActionResource(
            ConsolePages pages,
            QueueService queues,
            MessageService messages,
            RedriveService redrive,
            QueuePurge purge) {
        this.pages = pages;
        this.queues = queues;
        this.messages = messages;
        this.redrive = redrive;
        this.purge = purge;
    }

    @GET
    @Path("/projects/{project}/queues/{queue}/{action}")
    public Uni<Response> confirm(
            @PathParam("project") String project,
            @PathParam("queue") String queue,
            @PathParam("action") String action,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return pages.serve(project, ConsolePages.projectHref(project), cookie, null, call -> {
            QueueName name = QueueName.of(queue);
            QueueAction chosen = QueueAction.of(action);
            QueueAction.Typed blank = new QueueAction.Typed("{\"hello\": \"pigeon\"}", "", "", "");
            return ConsolePages.existing(queues, project, name)
                    .chain(() -> ConsolePages.page(
                            ConsolePages.Templates.confirm(chosen.confirmation(call, name, null, blank)), call));
        });
    }

    @POST
    @Path("/projects/{project}/queues/{queue}/{action}")
    public Uni<Response> act(
            @PathParam("project") String project,
            @PathParam("queue") String queue,
            @PathParam("action") String action,
            String raw,
            @CookieParam(ConsoleForms.COOKIE) String cookie,
            @HeaderParam("Sec-Fetch-Site") String fetchSite,
            @HeaderParam("Origin") String origin,
            @HeaderParam("Host") String host,
            @HeaderParam("Content-Type") String contentType) {
        ConsolePages.Sender sender = new ConsolePages.Sender(cookie, fetchSite, origin, host, contentType);
        String projectHref = ConsolePages.projectHref(project);
        return pages.serveForm(project, projectHref, sender, raw, QueueAction.FIELDS, (call, form) -> {
            QueueAction.Typed typed =
                    new QueueAction.Typed(form.get("body"), form.get("ttl"), form.get("delay"), form.get("rate"));
            QueueName name = QueueName.of(queue);
            QueueAction chosen = QueueAction.of(action);
            String queueHref = projectHref + "/queues/" + name.value();
            Uni<Response> done = Uni.createFrom().deferred(() -> switch (chosen) {
                case POST -> post(project, name, typed)
                        .replaceWith(() -> ConsolePages.redirect(queueHref + "?done=posted"));
                case PURGE -> purge(project, name).replaceWith(() -> ConsolePages.redirect(queueHref + "?done=purged"));
                case DELETE -> ConsolePages.existing(queues, project, name)
                        .chain(() -> queues.delete(project, name))
                        .replaceWith(() -> ConsolePages.redirect(projectHref));
                case REDRIVE -> redrive(project, name, typed.rate())
                        .replaceWith(() -> ConsolePages.redirect(queueHref + "?done=redrive"));
            });
            // A refused form is shown again, with what was typed and the refusal, at the refusal's status.
            return ConsolePages.shownAgain(
                    done,
                    call,
                    refusal -> ConsolePages.Templates.confirm(chosen.confirmation(call, name, refusal, typed)));
        });
    }

    /** Posts one message read from the form by the API's own post reader (v2's document and bounds). */
    private Uni<Void> post(String project, QueueName queue, QueueAction.Typed typed) {
        String body = typed.body();
        if (body == null || body.isBlank()) {
            throw Rejection.invalidParameter("body", "It is required: the message's body as JSON text.");
        }
        byte[] text = body.getBytes(StandardCharsets.UTF_8);
        if (text.length > messages.bounds().maxPostSize()) {
            throw Rejection.invalidParameter(
                    "body",
                    "It may be at most " + messages.bounds().maxPostSize() + " bytes (max-messages-post-size).");
        }
        JsonNode parsed;
        try {
            parsed = JsonBodyReader.parse(text);
        } catch (Rejection notJson) {
            throw Rejection.invalidParameter(
                    "body",
                    "It must be JSON text (an object, an array, a \"string\", a number, ...): "
                            + notJson.description());
        }
        ObjectNode message = JsonNodeFactory.instance.objectNode();
        message.set("body", parsed);
        ConsoleFormBody.putAsTheApiTakesIt(message, "ttl", typed.ttl());
        ConsoleFormBody.putAsTheApiTakesIt(message, "delay", typed.delay());
        ObjectNode document = JsonNodeFactory.instance.objectNode();
        document.putArray("messages").add(message);
        byte[] posted = document.toString().getBytes(StandardCharsets.UTF_8);
        List<NewMessage> read = MessagePostReader.read(posted, ApiVersion.V2, messages.bounds());
        // As the v2 API posts: the queue's reserved attributes give a TTL left empty, the delay and the size bound.
        // (The plain post is v1's, whose messages always carry a TTL: an empty one failed there with a 500.) The
        // console posts to a queue it shows: a missing one is a 404, not created as a post through the API makes it.
        return ConsolePages.existing(queues, project, queue)
                .chain(() ->
                        messages.postCreatingQueue(project, queue, UUID.randomUUID(), read, posted.length, true, null))
                .replaceWithVoid();
    }

    private Uni<Void> purge(String project, QueueName queue) {
        ObjectNode document = JsonNodeFactory.instance.objectNode();
        ArrayNode types = document.putArray("resource_types");
        types.add("messages");
        PurgeReader.Purge what = PurgeReader.read(document);
        return ConsolePages.existing(queues, project, queue)
                .chain(() -> purge.purge(project, queue, what.messages(), what.subscriptions()));
    }

    private Uni<Void> redrive(String project, QueueName queue, String rate) {
        ObjectNode document = JsonNodeFactory.instance.objectNode();
        ConsoleFormBody.putAsTheApiTakesIt(document, "rate", rate);
        RedriveService.Request request = RedriveReader.read(document, redrive.maxRate());
        return redrive.start(project, queue, request).replaceWithVoid();
    }
}
