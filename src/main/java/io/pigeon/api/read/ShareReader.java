package io.pigeon.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.api.ApiVersion;
import io.pigeon.api.view.Hrefs;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.pigeon.tenancy.SignedUrls;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A share request ({@code POST /v2/queues/{name}/share}) as Zaqar reads it: {@code paths} among messages,
 * subscriptions and claims of the queue (default messages), {@code methods} among GET, HEAD, POST, PUT, PATCH and
 * DELETE (default GET; Zaqar signs any text, which lets a method carry text that verifies as a path) and {@code expires}
 * (default a day from now); any other key is refused. Zaqar's texts, with Python's set notation.
 */
public final class ShareReader {

    /** What a share asks to sign. */
    public record Share(List<String> paths, List<String> methods, Instant expires) {}

    private static final Set<String> KNOWN_KEYS = Set.of("paths", "methods", "expires");
    private static final Set<String> SHAREABLE = Set.of("messages", "subscriptions", "claims");

    private ShareReader() {}

    public static Share read(JsonNode document, QueueName queue, Instant now) {
        if (!document.isObject()) {
            throw Rejection.invalidBody("Document type not supported. A share is a JSON object.");
        }
        Set<String> unknown = new TreeSet<>();
        document.fieldNames().forEachRemaining(key -> {
            if (!KNOWN_KEYS.contains(key)) {
                unknown.add(key);
            }
        });
        if (!unknown.isEmpty()) {
            throw Rejection.invalidRequest("Unknown keys: " + pythonSet(unknown));
        }
        List<String> named = strings(document.get("paths"), "`paths` should be a list");
        List<String> paths = new ArrayList<>();
        if (named.isEmpty()) {
            paths.add(Hrefs.messages(ApiVersion.V2, queue));
        } else {
            Set<String> invalid = new TreeSet<>(named);
            invalid.removeAll(SHAREABLE);
            if (!invalid.isEmpty()) {
                throw Rejection.invalidRequest("Invalid paths: " + pythonSet(invalid));
            }
            named.stream().distinct().forEach(path -> paths.add(Hrefs.queue(ApiVersion.V2, queue) + "/" + path));
        }
        List<String> methods = strings(document.get("methods"), "`methods` should be a list");
        Set<String> unknownMethods = new TreeSet<>(methods);
        unknownMethods.removeAll(SignedUrls.METHODS);
        if (!unknownMethods.isEmpty()) {
            throw Rejection.invalidRequest("Invalid methods: " + pythonSet(unknownMethods) + "; `methods` are among "
                    + pythonSet(new TreeSet<>(SignedUrls.METHODS)));
        }
        return new Share(paths, methods.isEmpty() ? List.of("GET") : methods, expires(document.get("expires"), now));
    }

    private static Instant expires(JsonNode value, Instant now) {
        if (value == null || value.isNull()) {
            return now.plus(1, ChronoUnit.DAYS);
        }
        if (value.isIntegralNumber()) {
            throw Rejection.invalidRequest("`expires` should be date format, for example 2016-01-01T00:00:00, "
                    + "not integer value: " + value.asText());
        }
        if (!value.isTextual()) {
            throw Rejection.invalidRequest("`expires` should be date format, for example 2016-01-01T00:00:00");
        }
        try {
            return SignedUrls.parseExpires(value.asText());
        } catch (IllegalArgumentException e) {
            throw Rejection.invalidRequest(e.getMessage());
        }
    }

    /** A list of strings; absent, null or empty is an empty list. */
    private static List<String> strings(JsonNode value, String refusal) {
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw Rejection.invalidRequest(refusal);
        }
        List<String> strings = new ArrayList<>();
        for (Iterator<JsonNode> items = value.elements(); items.hasNext(); ) {
            JsonNode item = items.next();
            if (!item.isTextual() || item.asText().isEmpty() || item.asText().contains(",")) {
                throw Rejection.invalidRequest(refusal + " of names (non-empty strings without commas)");
            }
            strings.add(item.asText());
        }
        return strings;
    }

    private static String pythonSet(Set<String> items) {
        return items.stream().map(item -> "'" + item + "'").collect(Collectors.joining(", ", "{", "}"));
    }
}
