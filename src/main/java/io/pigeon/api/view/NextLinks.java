package io.pigeon.api.view;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * The {@code next} link of every page, built one way: the listing's path, the marker moved past the page, and
 * the caller's own options in the order given (absent ones left out), each value URL-encoded.
 */
public final class NextLinks {

    private final StringBuilder href;

    private NextLinks(String path, String marker) {
        this.href = new StringBuilder(path).append("?marker=").append(encode(marker));
    }

    /** A link to the page of {@code path} after {@code marker}. */
    public static NextLinks after(String path, String marker) {
        return new NextLinks(path, marker);
    }

    /** Adds {@code name=value} when the caller gave a value (text as sent, trimmed). */
    public NextLinks option(String name, String value) {
        if (value != null) {
            href.append('&').append(name).append('=').append(encode(value.trim()));
        }
        return this;
    }

    /** Adds {@code name=value} when the caller gave a value. */
    public NextLinks option(String name, Object value) {
        return option(name, value == null ? null : value.toString());
    }

    /** Adds {@code name=true} when set: options whose absence means false. */
    public NextLinks flag(String name, boolean set) {
        return set ? option(name, "true") : this;
    }

    public String href() {
        return href.toString();
    }

    public PageLink link() {
        return PageLink.next(href());
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
