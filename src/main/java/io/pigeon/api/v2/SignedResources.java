package io.pigeon.api.v2;

import io.pigeon.api.ApiVersion;
import io.pigeon.api.SignedRequests;
import io.pigeon.tenancy.SignedTarget;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.UriInfo;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;

/**
 * The queue resources a pre-signed URL can open, named after routing from the resource method the router matched
 * and its path parameters (never from the path as sent): the messages, claims and subscriptions of a v2 queue or
 * topic, and a subscription's confirmation. Runs before authentication; every other method is left unnamed, and
 * a signed request to it is refused.
 */
public class SignedResources {

    @ServerRequestFilter(priority = Priorities.AUTHENTICATION - 50)
    public void name(ContainerRequestContext context, SimpleResourceInfo resource, UriInfo uri) {
        if (context.getHeaderString(SignedRequests.SIGNATURE) == null) {
            return;
        }
        MultivaluedMap<String, String> path = uri.getPathParameters();
        Class<?> matched = resource.getResourceClass();
        if (matched == V2MessageResource.class) {
            SignedRequests.target(
                    context,
                    SignedTarget.of(
                            path.getFirst("version"),
                            path.getFirst("collection"),
                            path.getFirst("queue"),
                            SignedTarget.Kind.MESSAGES));
        } else if (matched == V2ClaimResource.class) {
            SignedRequests.target(
                    context,
                    SignedTarget.of(
                            path.getFirst("version"), "queues", path.getFirst("queue"), SignedTarget.Kind.CLAIMS));
        } else if (matched == V2SubscriptionResource.class) {
            String collection = path.getFirst("collection");
            String queue = path.getFirst("name");
            SignedRequests.target(
                    context,
                    V2SubscriptionResource.CONFIRM.equals(resource.getMethodName())
                            ? SignedTarget.confirmation(ApiVersion.V2.segment(), collection, queue, path.getFirst("id"))
                            : SignedTarget.of(
                                    ApiVersion.V2.segment(), collection, queue, SignedTarget.Kind.SUBSCRIPTIONS));
        }
    }
}
