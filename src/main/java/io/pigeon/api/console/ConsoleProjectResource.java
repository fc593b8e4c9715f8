package io.pigeon.api.console;

import io.pigeon.api.Public;
import io.pigeon.queuemetrics.ListedQueue;
import io.pigeon.queuemetrics.QueueOverview;
import io.pigeon.rules.Rejection;
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
import java.util.regex.Pattern;

/**
 * A project's page of the console: the table of its queues, one page of them, filtered and sorted, with each queue's
 * last sample and its flow of the last hour (QueueOverview). Its pages pass through {@link ConsolePages}.
 */
@Path("/console")
@Produces(MediaType.TEXT_HTML)
// Open to the API's bearer-token check: the console's own sign-in decides who acts (ConsoleSignIn, ConsoleIdentity).
@Public
@ConsoleSignedIn
public class ConsoleProjectResource {

    private static final Pattern PAGE_NUMBER = Pattern.compile("-?[0-9]{1,9}");

    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance queues(QueueTableView.Queues view);
    }

    private final ConsolePages pages;
    private final QueueOverview overview;

    private final ConsoleSettings consoleSettings;

    public ConsoleProjectResource(ConsolePages pages, QueueOverview overview, ConsoleSettings consoleSettings) {
        this.pages = pages;
        this.consoleSettings = consoleSettings;
        this.overview = overview;
    }

    @GET
    @Path("/projects/{project}")
    public Uni<Response> project(
            @PathParam("project") String project,
            @QueryParam("filter") String filter,
            @QueryParam("sort") String sort,
            @QueryParam("page") String page,
            @CookieParam(ConsoleForms.COOKIE) String cookie) {
        return pages.serve(project, "/console", cookie, null, call -> {
            QueueOverview.Sort order = QueueOverview.Sort.of(sort);
            int number = pageNumber(page);
            return overview.page(project, filter, order, number, consoleSettings.queuesPerPage())
                    .chain(found -> overview.flows(
                                    project,
                                    found.queues().stream()
                                            .map(ListedQueue::name)
                                            .toList())
                            .map(flows -> QueueTableView.of(call.frame(), project, found, flows)))
                    .chain(view -> ConsolePages.page(Templates.queues(view), call));
        });
    }

    private static int pageNumber(String page) {
        if (page == null || page.isEmpty()) {
            return 1;
        }
        if (!PAGE_NUMBER.matcher(page).matches()) {
            throw Rejection.invalidParameter("page", "It must be an integer from 1 to " + QueueOverview.MAX_PAGE + ".");
        }
        return Integer.parseInt(page);
    }
}
