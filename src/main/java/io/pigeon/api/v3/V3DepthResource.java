package io.pigeon.api.v3;

import io.pigeon.api.ProjectInPath;
import io.pigeon.api.RequestCaller;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.pigeon.scaling.QueueDepths;
import io.pigeon.tenancy.Projects;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * A queue's depth for autoscalers that read a plain HTTP endpoint (KEDA's metrics-api scaler): the project is in the
 * path, so no Zaqar header ({@code X-Project-Id}, {@code Client-ID}) is needed, and in OIDC mode a bearer token must
 * grant that project, as for any request. A queue the project does not have has no messages, whether or not another
 * project has one of that name.
 */
@Path("/v3/projects/{project}/queues/{queue}/depth")
@Produces(MediaType.APPLICATION_JSON)
public class V3DepthResource {

    private final QueueDepths depths;
    private final RequestCaller caller;

    public V3DepthResource(QueueDepths depths, RequestCaller caller) {
        this.depths = depths;
        this.caller = caller;
    }

    @GET
    @ProjectInPath
    public Uni<V3Views.Depth> depth(@PathParam("queue") String queue) {
        String project;
        try {
            project = caller.requiredProject();
        } catch (Rejection malformed) {
            throw new Rejection(
                    Rejection.Reason.INVALID_IDENTIFICATION,
                    "The project in the path must be 1 to " + Projects.MAX_PROJECT_ID_LENGTH
                            + " printable ASCII characters.");
        }
        return depths.depth(project, QueueName.of(queue)).map(V3Views.Depth::of);
    }
}
