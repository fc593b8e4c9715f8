package io.pigeon.api.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.StrictUtf8;
import io.pigeon.json.StrictJson;
import io.pigeon.sqs.Printable;
import io.pigeon.sqs.SqsRefusal;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Tells an SQS request from every other request on the main port, and reads it into one {@link SqsRequest}. SQS is:
 * a POST carrying {@code X-Amz-Target} or AWS JSON 1.0's content type (JSON), a POST of a form to {@code /} or to a
 * queue's path (query), a GET of {@code /} whose query string names an {@code Action}, or a GET of a queue's path
 * (query). Nothing else is: {@code GET /} without {@code Action} stays Zaqar's versions document, a websocket upgrade
 * stays a websocket, and a POST of any other type to {@code /} stays Zaqar's 405.
 */
final class SqsRequests {

    static final String TARGET = "X-Amz-Target";
    static final String TARGET_PREFIX = "AmazonSQS.";
    static final String VERSION = "2012-11-05";
    /** The most parameters a query-protocol request may carry (a batch of 10 with 10 attributes each is about 500). */
    static final int MAX_PARAMETERS = 2000;

    private static final String FORM = "application/x-www-form-urlencoded";

    private SqsRequests() {}

    /** The request's protocol when it is an SQS request, else null (it goes on to Zaqar's routes). */
    static SqsProtocol protocolOf(HttpServerRequest request) {
        String path = request.path();
        boolean root = "/".equals(path);
        boolean queuePath = !root && QueueUrls.isQueuePath(path);
        if (!root && !queuePath) {
            return null;
        }
        HttpMethod method = request.method();
        if (HttpMethod.POST.equals(method)) {
            String type = contentType(request);
            if (request.getHeader(TARGET) != null || type.startsWith(SqsWire.JSON_TYPE)) {
                return SqsProtocol.JSON;
            }
            return type.startsWith(FORM) || queuePath ? SqsProtocol.QUERY : null;
        }
        if (HttpMethod.GET.equals(method) && request.getHeader("Upgrade") == null) {
            return queuePath || namesAction(request.query()) ? SqsProtocol.QUERY : null;
        }
        return null;
    }

    /** Reads the request; refuses with the error AWS gives when it cannot be read. */
    static SqsRequest read(SqsProtocol protocol, HttpServerRequest request, byte[] body, String requestId) {
        String path = request.path();
        String queuePath = "/".equals(path) ? null : path;
        // Decoded for both wires, so that a JSON request's query string is held to the same bounds (parameter count,
        // no repeats) as a query-protocol one's, though only the query protocol reads it.
        Map<String, String> queryString = new LinkedHashMap<>();
        decode(request.query(), queryString);
        if (protocol == SqsProtocol.JSON) {
            return new SqsRequest(protocol, jsonAction(request), jsonInput(body), queuePath, requestId);
        }
        Map<String, String> parameters = new LinkedHashMap<>(queryString);
        if (HttpMethod.POST.equals(request.method()) && contentType(request).startsWith(FORM)) {
            decode(utf8(body, "The request body"), parameters);
        }
        String version = parameters.get("Version");
        if (version != null && !VERSION.equals(version)) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.NO_SUCH_VERSION,
                    "An incorrect version was specified in the request: " + Printable.of(version) + " (this API is "
                            + VERSION + ").");
        }
        String action = parameters.get("Action");
        if (action == null || action.isEmpty()) {
            throw new SqsRefusal(SqsRefusal.Reason.MISSING_ACTION, "No action was supplied with this request.");
        }
        return new SqsRequest(protocol, action, new QueryParameters(parameters), queuePath, requestId);
    }

    private static String jsonAction(HttpServerRequest request) {
        String target = request.getHeader(TARGET);
        if (target == null || !target.startsWith(TARGET_PREFIX) || target.length() == TARGET_PREFIX.length()) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.INVALID_ACTION,
                    target == null
                            ? "The request must name its action in the " + TARGET + " header (AmazonSQS.<Action>)."
                            : "The action " + Printable.of(target) + " is not valid for this endpoint.");
        }
        return target.substring(TARGET_PREFIX.length());
    }

    private static SqsParameters jsonInput(byte[] body) {
        if (body.length == 0) {
            return JsonParameters.empty();
        }
        JsonNode document;
        try {
            document = StrictJson.read(body);
        } catch (IOException | RuntimeException e) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.SERIALIZATION, "The request body is not a JSON document (or repeats a key).");
        }
        if (document == null || !document.isObject()) {
            throw new SqsRefusal(SqsRefusal.Reason.SERIALIZATION, "The request body must be a JSON object.");
        }
        return new JsonParameters((ObjectNode) document);
    }

    /** Adds the parameters of a form or query string; a name given twice is refused (two values, one meaning). */
    static void decode(String encoded, Map<String, String> into) {
        if (encoded == null || encoded.isEmpty()) {
            return;
        }
        int start = 0;
        while (start <= encoded.length()) {
            int end = encoded.indexOf('&', start);
            if (end < 0) {
                end = encoded.length();
            }
            if (end > start) {
                String pair = encoded.substring(start, end);
                int equals = pair.indexOf('=');
                String name = unescape(equals < 0 ? pair : pair.substring(0, equals));
                String value = equals < 0 ? "" : unescape(pair.substring(equals + 1));
                if (into.size() >= MAX_PARAMETERS) {
                    throw malformed("The request carries more than " + MAX_PARAMETERS + " parameters.");
                }
                if (into.putIfAbsent(name, value) != null) {
                    throw malformed("The parameter " + Printable.of(name) + " is given more than once.");
                }
            }
            start = end + 1;
        }
    }

    /**
     * A name or value of a form or query string, decoded: {@code +} is a space, each {@code %XX} one byte, and the
     * bytes must be UTF-8. A JDK decoder would put U+FFFD for bytes that are not, which SQS allows in a message body:
     * a body the client did not send would be stored and its MD5 would not be the one the client computed. AWS
     * refuses a query string it cannot decode.
     */
    static String unescape(String text) {
        if (text.indexOf('%') < 0 && text.indexOf('+') < 0) {
            return text;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '+') {
                bytes.write(' ');
            } else if (c == '%') {
                int high = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
                int low = high < 0 ? -1 : Character.digit(text.charAt(i + 2), 16);
                if (low < 0) {
                    throw malformed("The query string contains a syntax error: " + Printable.of(text));
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                // A character the request already carried decoded (a strict UTF-8 form body): its own bytes.
                int end = Character.isHighSurrogate(c) && i + 1 < text.length() ? i + 2 : i + 1;
                bytes.writeBytes(text.substring(i, end).getBytes(StandardCharsets.UTF_8));
                i = end - 1;
            }
        }
        return utf8(bytes.toByteArray(), "A parameter of the query string");
    }

    /** {@code bytes} as UTF-8, refused as AWS refuses a query string it cannot decode when they are not UTF-8. */
    private static String utf8(byte[] bytes, String what) {
        return StrictUtf8.decode(bytes, bytes.length).orElseThrow(() -> malformed(what + " is not UTF-8."));
    }

    private static SqsRefusal malformed(String message) {
        return new SqsRefusal(SqsRefusal.Reason.MALFORMED_QUERY_STRING, message);
    }

    private static boolean namesAction(String query) {
        if (query == null) {
            return false;
        }
        return query.startsWith("Action=") || query.contains("&Action=");
    }

    private static String contentType(HttpServerRequest request) {
        String type = request.getHeader("Content-Type");
        return type == null ? "" : type.trim().toLowerCase(Locale.ROOT);
    }
}
