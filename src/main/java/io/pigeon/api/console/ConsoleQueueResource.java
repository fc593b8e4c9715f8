package io.pigeon.api.console;

import io.pigeon.api.Public;
import io.pigeon.claim.ClaimService;
import io.pigeon.claim.FifoGroups;
import io.pigeon.config.PigeonConfig;
import io.pigeon.message.MessageService;
import io.pigeon.queue.Ordering;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.pigeon.queuemetrics.QueueOverview;
import io.pigeon.redrive.RedriveService;
import io.pigeon.subscription.SubscriptionService;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.CookieParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.UUID;

/**
 * A queue's page of the console: what it holds and how it flows, read through the same services the HTTP API calls
 * (the messages as a v2 listing with claimed and delayed ones, the claims in flight, the subscriptions, the redrive
 * tasks, the last sample, and a fifo queue's groups after its metadata says it is one). Its pages pass through
 * {@link ConsolePages}.
 */
@Path("/console")
@Produces(MediaType.TEXT_HTML)
// Open to the API's bearer-token check: the console's own sign-in decides who acts (ConsoleSignIn, ConsoleIdentity).
@Public
@ConsoleSignedIn
public class ConsoleQueueResource {

    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance queue(QueuePageView.QueuePage view);
    }

    private final ConsolePages pages;
    private final PigeonConfig config;
    private final QueueOverview overview;
    private final QueueService queues;
    private final MessageService messages;
    private final ClaimService claims;
    private final SubscriptionService subscriptions;
    private final RedriveService redrive;
    private final FifoGroups groups;

    public ConsoleQueueResource(
            ConsolePages pages,
            PigeonConfig config,
            QueueOverview overview,
            QueueService queues,
            MessageService messages,
            ClaimService claims,
            SubscriptionService subscriptions,
            RedriveService redrive,
            FifoGroups groups) {
        this.pages = pages;
        this.config = config;
        this.overview = overview;
        this.queues = queues;
        this.messages = messages;
        this.claims = claims;
        this.subscriptions = subscriptions;
        this.redrive = redrive;
        this.groups = groups;
    }

    @GET
    @Path("/projects/{project}/queues/{queue}")
    public Uni<Response> queue(
            @PathParam("project") String project,
            @PathParam("queue") String queue,
            @QueryParam("done") String done,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return pages.serve(project, ConsolePages.projectHref(project), cookie, null, call -> {
            QueueName name = QueueName.of(queue);
            int peekLimit = config.maxMessagesPerPage();
            return ConsolePages.existing(queues, project, name)
                    .chain(() -> queues.metadataWithDefaults(project, name))
                    .chain(metadata -> Uni.combine()
                            .all()
                            .unis(
                                    overview.one(project, name),
                                    messages.page(project, name, UUID.randomUUID(), 0, peekLimit, true, true, true),
                                    claims.inFlight(project, name),
                                    subscriptions.list(project, name, 0, config.maxSubscriptionsPerPage()),
                                    redrive.list(project, name),
                                    overview.flow(project, name),
                                    groups.of(project, name, Ordering.of(metadata)))
                            .with((status, page, live, subscribed, tasks, flow, fifo) -> QueuePageView.of(
                                    call.frame(),
                                    name,
                                    ConsoleViews.notice(done),
                                    new QueuePageView.Read(
                                            status, metadata, page, live, subscribed, tasks, flow, peekLimit, fifo))))
                    .chain(view -> ConsolePages.page(Templates.queue(view), call));
        });
    }
}
