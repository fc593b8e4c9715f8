package io.pigeon.accesskeys;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The canonical request of Signature Version 4, built from a request as received, by AWS's rules for every service
 * but S3 (SQS among them): the path is the path as sent, its dot segments and empty segments removed, percent-encoded
 * once more (the client signed its already-encoded path encoded again: "double encoding"); the query parameters
 * decoded, encoded again the one strict way (RFC 3986 unreserved characters left as they are, everything else as
 * upper-case {@code %XX} of its UTF-8 bytes) and sorted by name then value; each signed header lower-cased, its values
 * trimmed with inner runs of whitespace made one space and joined by commas.
 */
final class CanonicalRequest {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private CanonicalRequest() {}

    /**
     * The canonical request: method, canonical path, canonical query (without {@code omittedParameter}, the
     * signature of a pre-signed URL), the canonical headers named by {@code signedHeaders}, and the payload hash.
     * Null when a signed header was not sent.
     */
    static String of(
            SignedRequest request,
            String omittedParameter,
            List<String> signedHeaderNames,
            String signedHeaders,
            String payloadHash) {
        StringBuilder text = new StringBuilder(256);
        text.append(request.method()).append('\n');
        text.append(canonicalPath(request.rawPath())).append('\n');
        text.append(canonicalQuery(request.rawQuery(), omittedParameter)).append('\n');
        for (String name : signedHeaderNames) {
            List<String> values = request.header(name);
            if (values.isEmpty()) {
                return null;
            }
            text.append(name).append(':');
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    text.append(',');
                }
                appendTrimmed(text, values.get(i));
            }
            text.append('\n');
        }
        text.append('\n').append(signedHeaders).append('\n').append(payloadHash);
        return text.toString();
    }

    /**
     * The canonical path of {@code rawPath}: {@code .} and {@code ..} segments resolved, empty segments dropped (as
     * AWS's published rules, botocore and the Java SDK all do), a trailing slash kept, and the result percent-encoded
     * with {@code /} left as it is.
     */
    static String canonicalPath(String rawPath) {
        if (rawPath == null || rawPath.isEmpty()) {
            return "/";
        }
        boolean plain = rawPath.indexOf("/.") < 0 && rawPath.indexOf("//") < 0;
        String normalized = plain ? rawPath : removeDotSegments(rawPath);
        return encode(normalized, false);
    }

    private static String removeDotSegments(String path) {
        List<String> kept = new ArrayList<>();
        String[] segments = path.split("/", -1);
        for (String segment : segments) {
            if (segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                if (!kept.isEmpty()) {
                    kept.remove(kept.size() - 1);
                }
                continue;
            }
            if (segment.isEmpty()) {
                continue;
            }
            kept.add(segment);
        }
        boolean trailingSlash = path.endsWith("/") || path.endsWith("/.") || path.endsWith("/..");
        StringBuilder result = new StringBuilder(path.length());
        result.append('/');
        result.append(String.join("/", kept));
        if (trailingSlash && !kept.isEmpty()) {
            result.append('/');
        }
        return result.toString();
    }

    /** The canonical query string of {@code rawQuery}, without the parameter named {@code omitted} (when not null). */
    static String canonicalQuery(String rawQuery, String omitted) {
        if (rawQuery.isEmpty()) {
            return "";
        }
        List<String> pairs = new ArrayList<>();
        for (String part : rawQuery.split("&", -1)) {
            if (part.isEmpty()) {
                continue;
            }
            int equals = part.indexOf('=');
            String name = encode(formDecode(equals < 0 ? part : part.substring(0, equals)), true);
            if (name.equals(omitted)) {
                continue;
            }
            String value = equals < 0 ? "" : encode(formDecode(part.substring(equals + 1)), true);
            // '=' sorts below every encoded character, so sorting "name=value" sorts by name, then by value
            pairs.add(name + '=' + value);
        }
        String[] sorted = pairs.toArray(new String[0]);
        Arrays.sort(sorted);
        return String.join("&", sorted);
    }

    /**
     * {@code text} percent-encoded as SigV4 asks: RFC 3986 unreserved characters kept, {@code /} kept unless
     * {@code encodeSlash}, every other byte of its UTF-8 form as {@code %XX}.
     */
    static String encode(String text, boolean encodeSlash) {
        int i = 0;
        while (i < text.length() && unreserved(text.charAt(i), encodeSlash)) {
            i++;
        }
        if (i == text.length()) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16);
        out.append(text, 0, i);
        for (byte b : text.substring(i).getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c < 0x80 && unreserved(c, encodeSlash)) {
                out.append(c);
            } else {
                out.append('%').append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
            }
        }
        return out.toString();
    }

    private static boolean unreserved(char c, boolean encodeSlash) {
        return (c >= 'A' && c <= 'Z')
                || (c >= 'a' && c <= 'z')
                || (c >= '0' && c <= '9')
                || c == '-'
                || c == '_'
                || c == '.'
                || c == '~'
                || (c == '/' && !encodeSlash);
    }

    /**
     * A query string's name or value as the SQS door reads it (a form: a raw {@code +} is a space), so that the
     * signature covers what the action acts on: SDKs never send a raw {@code +} (a space is {@code %20}, a plus
     * {@code %2B}), and were a raw one canonicalised as a plus, {@code %2B} and {@code +} would sign alike while the
     * action read a plus and a space.
     */
    private static String formDecode(String text) {
        return decode(text.replace('+', ' '));
    }

    /**
     * {@code text} with its {@code %XX} sequences decoded as UTF-8; {@code +} stays a plus (SDKs send a space as
     * {@code %20}), and a {@code %} not followed by two hex digits stays as it is.
     */
    static String decode(String text) {
        int percent = text.indexOf('%');
        if (percent < 0) {
            return text;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        int from = 0;
        while (percent >= 0) {
            if (percent + 2 < text.length()
                    && hex(text.charAt(percent + 1)) >= 0
                    && hex(text.charAt(percent + 2)) >= 0) {
                bytes.writeBytes(text.substring(from, percent).getBytes(StandardCharsets.UTF_8));
                bytes.write(hex(text.charAt(percent + 1)) * 16 + hex(text.charAt(percent + 2)));
                from = percent + 3;
            }
            percent = text.indexOf('%', percent + 1);
        }
        bytes.writeBytes(text.substring(from).getBytes(StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }

    private static void appendTrimmed(StringBuilder text, String value) {
        int start = 0;
        int end = value.length();
        while (start < end && Character.isWhitespace(value.charAt(start))) {
            start++;
        }
        while (end > start && Character.isWhitespace(value.charAt(end - 1))) {
            end--;
        }
        boolean space = false;
        for (int i = start; i < end; i++) {
            char c = value.charAt(i);
            if (Character.isWhitespace(c)) {
                space = true;
            } else {
                if (space) {
                    text.append(' ');
                    space = false;
                }
                text.append(c);
            }
        }
    }
}
