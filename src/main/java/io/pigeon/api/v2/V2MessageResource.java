package io.pigeon.api.v2;

import io.pigeon.api.ApiException;
import io.pigeon.api.ClientIds;
import io.pigeon.api.ContentTypes;
import io.pigeon.api.NextLinks;
import io.pigeon.api.PageLink;
import io.pigeon.api.QueryParams;
import io.pigeon.message.Message;
import io.pigeon.message.MessageIds;
import io.pigeon.message.MessageService;
import io.pigeon.tenancy.Projects;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

/** The v2 message resources: post (creating the queue), list, get, delete, bulk delete and pop. */
@Path("/v2/queues/{queue}/messages")
@V2Call
@Produces(MediaType.APPLICATION_JSON)
public class V2MessageResource {

    private final MessageService messages;

    public V2MessageResource(MessageService messages) {
        this.messages = messages;
    }

    @POST
    public Uni<Response> post(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(ClientIds.HEADER) String clientHeader,
            @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
            @PathParam("queue") String queue,
            byte[] body) {
        String project = Projects.fromRequiredHeader(projectHeader);
        UUID clientId = ClientIds.require(clientHeader);
        ContentTypes.requireJson(contentType);
        var newMessages = messages.toNewMessages(messages.messagesOf(messages.readPostDocument(body)), true);
        return messages.postCreatingQueue(project, queue, clientId, newMessages, body.length).map(ids -> {
            String location = V2Messages.messagesHref(queue) + "?ids=" + MessageIds.join(ids);
            return Response.status(201)
                    .header(HttpHeaders.LOCATION, location)
                    .entity(new V2Messages.Posted(Arrays.stream(ids).mapToObj(id -> V2Messages.messageHref(queue, id)).toList()))
                    .build();
        });
    }

    /** Lists the queue (200 even when empty or absent), or with {@code ids} gets those messages. */
    @GET
    public Uni<V2Messages.Messages> list(@HeaderParam(Projects.HEADER) String projectHeader,
            @HeaderParam(ClientIds.HEADER) String clientHeader,
            @PathParam("queue") String queue,
            @QueryParam("ids") String ids,
            @QueryParam("marker") String marker,
            @QueryParam("limit") String limitParam,
            @QueryParam("echo") String echoParam,
            @QueryParam("include_claimed") String includeClaimedParam,
            @QueryParam("include_delayed") String includeDelayedParam) {
        String project = Projects.fromRequiredHeader(projectHeader);
        UUID clientId = ClientIds.require(clientHeader);
        if (ids != null) {
            List<String> wanted = splitIds(ids);
            return messages.getByIds(project, queue, wanted).map(found -> {
                if (found.isEmpty()) {
                    throw ApiException.notFound("No messages with IDs: " + pythonList(wanted) + " found in the queue "
                            + queue + " for project " + project + ".");
                }
                return new V2Messages.Messages(V2Messages.items(queue, found), null);
            });
        }
        Integer limit = QueryParams.integer("limit", limitParam);
        boolean echo = QueryParams.bool("echo", echoParam, false);
        boolean includeClaimed = QueryParams.bool("include_claimed", includeClaimedParam, false);
        boolean includeDelayed = QueryParams.bool("include_delayed", includeDelayedParam, false);
        return messages.page(project, queue, clientId, marker, limit, echo, includeClaimed, includeDelayed).map(found -> {
            List<Message> page = found.orElse(List.of());
            if (page.isEmpty()) {
                return new V2Messages.Messages(List.of(), List.of());
            }
            String next = NextLinks.messages(V2Messages.messagesHref(queue), page.get(page.size() - 1).id(), limitParam,
                    NextLinks.flags("echo", echoParam == null ? null : echo,
                            "include_claimed", includeClaimedParam == null ? null : includeClaimed,
                            "include_delayed", includeDelayedParam == null ? null : includeDelayed));
            return new V2Messages.Messages(V2Messages.items(queue, page), List.of(PageLink.next(next)));
        });
    }

    @GET
    @Path("{id}")
    public Uni<V2Messages.Item> get(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("queue") String queue,
            @PathParam("id") String id) {
        return messages.get(Projects.fromRequiredHeader(projectHeader), queue, id).map(m -> V2Messages.item(queue, m));
    }

    @DELETE
    @Path("{id}")
    public Uni<Response> delete(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("queue") String queue,
            @PathParam("id") String id,
            @QueryParam("claim_id") String claimId) {
        return messages.delete(Projects.fromRequiredHeader(projectHeader), queue, id, claimId)
                .map(ignored -> Response.noContent().build());
    }

    /** Deletes the messages named by {@code ids}, or pops {@code pop} of the oldest free ones (200 with them). */
    @DELETE
    public Uni<Response> deleteOrPop(@HeaderParam(Projects.HEADER) String projectHeader,
            @PathParam("queue") String queue,
            @QueryParam("ids") String ids,
            @QueryParam("pop") String popParam) {
        String project = Projects.fromRequiredHeader(projectHeader);
        if (ids != null && popParam != null) {
            throw ApiException.invalidRequest("pop and id params cannot be present together in the delete request.");
        }
        if (popParam != null) {
            Integer count = QueryParams.integer("pop", popParam);
            return messages.pop(project, queue, count)
                    .map(popped -> Response.ok(new V2Messages.Messages(V2Messages.items(queue, popped), null)).build());
        }
        if (ids == null) {
            throw ApiException.invalidRequest(
                    "The request should have either \"ids\" or \"pop\" parameter in the request, to be able to delete.");
        }
        return messages.deleteByIds(project, queue, splitIds(ids)).map(ignored -> Response.noContent().build());
    }

    private static List<String> splitIds(String ids) {
        return Arrays.stream(ids.split(",")).map(String::trim).filter(id -> !id.isEmpty()).toList();
    }

    /** The ids as Zaqar's error text shows them (a Python list). */
    private static String pythonList(List<String> ids) {
        return ids.stream().map(id -> "'" + id + "'").collect(Collectors.joining(", ", "[", "]"));
    }

}
