package io.pigeon.dispatch;

import java.util.Locale;
import java.util.Set;

/**
 * The headers a subscriber may add to its calls ({@code options.post_headers}), as HTTP allows them: a name is
 * a token, a value visible ASCII, spaces and tabs. The headers that steer the connection or the message framing
 * (Host, hop-by-hop headers, Content-Length) and Pigeon's own are never the subscriber's to set.
 */
public final class CallHeaders {

    /** Most extra headers on one call, and longest value. */
    public static final int MAX_HEADERS = 32;

    public static final int MAX_NAME_LENGTH = 256;
    public static final int MAX_VALUE_LENGTH = 8192;

    private static final Set<String> RESERVED = Set.of(
            "host",
            "connection",
            "keep-alive",
            "proxy-connection",
            "proxy-authenticate",
            "proxy-authorization",
            "te",
            "trailer",
            "transfer-encoding",
            "upgrade",
            "content-length",
            "expect",
            DeliveryClient.GROUP_HEADER.toLowerCase(Locale.ROOT),
            DeliveryClient.ATTEMPT_HEADER.toLowerCase(Locale.ROOT),
            CallMarker.HEADER.toLowerCase(Locale.ROOT));

    /** Every header of this prefix is Pigeon's to send, those it sends today and any it may send later. */
    private static final String PIGEON_PREFIX = "x-pigeon-";

    private CallHeaders() {}

    /** Why this header may not be sent, or null when it may. */
    public static String refusal(String name, String value) {
        if (name.isEmpty() || name.length() > MAX_NAME_LENGTH || !isToken(name)) {
            return "\"" + printable(name) + "\" is not a header name (1 to " + MAX_NAME_LENGTH
                    + " letters, digits and !#$%&'*+.^_`|~-)";
        }
        // Compared as CGI and WSGI receivers read names, with "_" for "-": X_Pigeon_Marker is X-Pigeon-Marker there.
        String read = name.toLowerCase(Locale.ROOT).replace('_', '-');
        if (RESERVED.contains(read) || read.startsWith(PIGEON_PREFIX)) {
            return "\"" + name + "\" may not be set: Host, hop-by-hop, framing and X-Pigeon-* headers are Pigeon's";
        }
        if (value.length() > MAX_VALUE_LENGTH || !isFieldValue(value)) {
            return "the value of \"" + name + "\" must be at most " + MAX_VALUE_LENGTH
                    + " characters of visible ASCII, spaces and tabs";
        }
        return null;
    }

    private static boolean isToken(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || "!#$%&'*+.^_`|~-".indexOf(c) >= 0;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static boolean isFieldValue(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!(c == '\t' || (c >= 0x20 && c <= 0x7e))) {
                return false;
            }
        }
        return true;
    }

    private static String printable(String name) {
        StringBuilder shown = new StringBuilder();
        name.codePoints().limit(64).forEach(c -> {
            if (c >= 0x20 && c <= 0x7e) {
                shown.appendCodePoint(c);
            } else {
                shown.append(String.format("\\u%04x", c));
            }
        });
        return shown.toString();
    }
}
