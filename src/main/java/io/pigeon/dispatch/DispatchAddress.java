package io.pigeon.dispatch;

import io.pigeon.rules.Rejection;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import java.util.Set;

/**
 * Where a group is delivered and how: the {@code {method}/{service}} part of a /v3/queue path, with
 * {@code service} decoded from URL-safe base64 (padding optional) to an absolute http(s) URL.
 */
public record DispatchAddress(String method, URI target) {

    public static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE");

    /** Longest decoded target URL accepted. */
    public static final int MAX_TARGET_LENGTH = 2048;

    public static DispatchAddress parse(String method, String service) {
        String upper = method == null ? "" : method.toUpperCase(Locale.ROOT);
        if (!METHODS.contains(upper)) {
            throw Rejection.invalidRequest("\"method\" must be one of GET, POST, PUT, PATCH or DELETE.");
        }
        return new DispatchAddress(upper, decodeService(service));
    }

    /** Checks a URL given as it is (a subscription's subscriber). */
    public static URI httpUrl(String field, String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw Rejection.invalidRequest("\"" + field + "\" must be an absolute http or https URL.");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!uri.isAbsolute()
                || !(scheme.equals("http") || scheme.equals("https"))
                || uri.getHost() == null
                || uri.getPort() > 65535
                || uri.getRawFragment() != null
                || url.length() > MAX_TARGET_LENGTH) {
            throw Rejection.invalidRequest("\"" + field + "\" must be an absolute http or https URL with a host, "
                    + "a port up to 65535 if any, and no fragment, of at most " + MAX_TARGET_LENGTH + " characters.");
        }
        return uri;
    }

    private static URI decodeService(String service) {
        String decoded;
        try {
            decoded = new String(Base64.getUrlDecoder().decode(service == null ? "" : service), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw Rejection.invalidRequest("\"service\" must be a URL in URL-safe base64 (with or without padding).");
        }
        return httpUrl("service", decoded);
    }
}
