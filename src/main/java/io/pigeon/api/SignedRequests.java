package io.pigeon.api;

import io.pigeon.tenancy.Caller;
import io.pigeon.tenancy.Projects;
import io.pigeon.tenancy.SignedTarget;
import io.pigeon.tenancy.SignedUrls;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import java.util.regex.Pattern;

/**
 * Requests authorised by a pre-signed URL's headers ({@code URL-Signature}, {@code URL-Expires},
 * {@code URL-Methods}, {@code URL-Paths} and {@code X-Project-Id}). Decided after routing: the resource method the
 * router matched says which queue resource is asked for ({@link #target}, set by the resources that a grant can
 * open), and {@link SignedUrls} decides whether the grant opens it. A request routed anywhere else, or whose path
 * is not already in its normal form (no dot segments, no empty segments, no percent-encoding: the spelling a
 * router would rewrite), is refused; every refusal is a 404, as Zaqar answers every signature failure.
 */
public final class SignedRequests {

    public static final String SIGNATURE = "URL-Signature";
    private static final String TARGET = "io.pigeon.api.signed-target";
    /** Segments of unreserved characters only, none of them {@code .} or {@code ..}, no trailing slash. */
    private static final Pattern NORMAL_PATH = Pattern.compile("(/(?!\\.{1,2}(/|$))[A-Za-z0-9._~-]+)+");

    /** A signature that does not grant the request: answered 404, as an unknown resource is. */
    static final class Refused extends RuntimeException {
        Refused() {
            super("The signed URL does not grant this request", null, false, false);
        }
    }

    private SignedRequests() {}

    static boolean isSigned(HttpServerRequest request) {
        return request.getHeader(SIGNATURE) != null;
    }

    /** Records, for the matched resource method, which queue resource a pre-signed request is asking for. */
    public static void target(ContainerRequestContext context, SignedTarget target) {
        context.setProperty(TARGET, target);
    }

    /** The caller a signed request acts as (its project, never the operator); 404 when the grant does not hold. */
    static Caller admit(HttpServerRequest request, ContainerRequestContext context, SignedUrls urls) {
        if (!(context.getProperty(TARGET) instanceof SignedTarget target)
                || !NORMAL_PATH.matcher(request.path()).matches()) {
            throw new Refused();
        }
        SignedUrls.Presented presented = new SignedUrls.Presented(
                request.getHeader(SIGNATURE),
                request.getHeader("URL-Expires"),
                request.getHeader("URL-Methods"),
                request.getHeader("URL-Paths"),
                request.getHeader(Projects.HEADER));
        if (!urls.admits(presented, request.method().name(), target)) {
            throw new Refused();
        }
        return Caller.signed(presented.project(), SignedUrls.expiryOf(presented), presented.signature());
    }
}
