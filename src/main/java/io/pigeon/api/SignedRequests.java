package io.pigeon.api;

import io.pigeon.tenancy.Caller;
import io.pigeon.tenancy.Projects;
import io.pigeon.tenancy.SignedUrls;
import io.vertx.core.http.HttpServerRequest;
import java.util.Arrays;
import java.util.List;

/**
 * Requests authorised by a pre-signed URL's headers ({@code URL-Signature}, {@code URL-Expires},
 * {@code URL-Methods}, {@code URL-Paths} and {@code X-Project-Id}), as Zaqar checks them: the method must be one
 * the grant names, the path one of its paths (or below one), and the signature this server's; every failure is a
 * 404. A signed path matches from the start of the request's path, at a segment boundary (Zaqar searches it
 * anywhere in the path as a pattern; a prefix gives the same grants to every client and no more).
 */
final class SignedRequests {

    static final String SIGNATURE = "URL-Signature";

    /** A signature that does not grant the request: answered 404, as an unknown resource is. */
    static final class Refused extends RuntimeException {
        Refused() {
            super("The signed URL does not grant this request", null, false, false);
        }
    }

    private SignedRequests() {
    }

    static boolean isSigned(HttpServerRequest request) {
        return request.getHeader(SIGNATURE) != null;
    }

    /** The caller a signed request acts as (its project, never the operator); 404 when the grant does not hold. */
    static Caller admit(HttpServerRequest request, SignedUrls urls) {
        List<String> methods = split(request.getHeader("URL-Methods"));
        List<String> paths = split(request.getHeader("URL-Paths"));
        String path = request.path();
        boolean pathGranted = paths.stream().anyMatch(granted -> !granted.isEmpty()
                && (path.equals(granted) || path.startsWith(granted.endsWith("/") ? granted : granted + "/")));
        String project = request.getHeader(Projects.HEADER);
        if (!methods.contains(request.method().name()) || !pathGranted
                || !urls.verifies(paths, methods, project, request.getHeader("URL-Expires"), request.getHeader(SIGNATURE))) {
            throw new Refused();
        }
        return new Caller(project, false);
    }

    /** A header's values split on commas, as Zaqar splits them (no trimming); none is an empty list. */
    private static List<String> split(String header) {
        return header == null ? List.of() : Arrays.asList(header.split(",", -1));
    }
}
