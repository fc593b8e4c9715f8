package io.pigeon.api.v2;

import io.pigeon.api.ContentTypes;
import io.pigeon.api.RequestCaller;
import io.pigeon.api.read.JsonBodyReader;
import io.pigeon.api.read.RedriveReader;
import io.pigeon.api.view.Hrefs;
import io.pigeon.queue.QueueName;
import io.pigeon.redrive.RedriveService;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * Dead-letter redrive (Pigeon's extension, v2 queues only; Zaqar answers these paths 404): start a task that moves a
 * queue's messages back to the queues they were dead-lettered from, or to a named queue; list its tasks; read or cancel
 * one. Every call acts on the caller's project only: another project's queue or task answers as a missing one.
 */
@Path("/v2/queues/{queue}/redrive")
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2RedriveResource {

    private final RedriveService redrives;
    private final RequestCaller caller;

    public V2RedriveResource(RedriveService redrives, RequestCaller caller) {
        this.redrives = redrives;
        this.caller = caller;
    }

    /** 201 with the task and its {@code Location}; the body ({@code target}, {@code rate}) may be left out. */
    @POST
    public Uni<Response> start(
            @PathParam("queue") String name, @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType, byte[] body) {
        String project = caller.requiredProject();
        QueueName queue = QueueName.of(name);
        RedriveService.Request request = RedriveService.Request.DEFAULTS;
        if (body != null && body.length > 0) {
            ContentTypes.requireJson(contentType);
            request = RedriveReader.read(JsonBodyReader.parse(body), redrives.maxRate());
        }
        return redrives.start(project, queue, request).map(task -> Response.status(201)
                .header(HttpHeaders.LOCATION, Hrefs.redriveTask(queue, task.id()))
                .entity(RedriveViews.of(queue, task))
                .build());
    }

    /** The queue's tasks, newest first ({@code {"tasks": []}} for a queue that has none, or does not exist). */
    @GET
    public Uni<RedriveViews.Tasks> list(@PathParam("queue") String name) {
        String project = caller.requiredProject();
        QueueName queue = QueueName.of(name);
        return redrives.list(project, queue).map(tasks -> RedriveViews.of(queue, tasks));
    }

    @GET
    @Path("{task}")
    public Uni<RedriveViews.Task> get(@PathParam("queue") String name, @PathParam("task") String task) {
        String project = caller.requiredProject();
        QueueName queue = QueueName.of(name);
        return redrives.get(project, queue, task).map(found -> RedriveViews.of(queue, found));
    }

    /** Cancels the task if it runs: 204, also for a task that has ended (it stays as it ended). */
    @DELETE
    @Path("{task}")
    public Uni<Response> cancel(@PathParam("queue") String name, @PathParam("task") String task) {
        String project = caller.requiredProject();
        QueueName queue = QueueName.of(name);
        return redrives.cancel(project, queue, task)
                .map(ignored -> Response.noContent().build());
    }
}
