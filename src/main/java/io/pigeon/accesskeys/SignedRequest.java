package io.pigeon.accesskeys;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * An HTTP request as it arrived, in the terms Signature Version 4 signs it: the method, the path and query string as
 * sent (still percent-encoded), every header with every value it was sent with, and the body's bytes. It names no web
 * type, so that any door (the SQS wire, a test, a benchmark) can make one.
 *
 * <p>The headers are kept by lower-cased name (header names are case-insensitive, and SigV4 signs them lower-cased),
 * each with its values in the order received, as a header sent twice is signed as its values joined by commas.
 */
public record SignedRequest(
        String method, String rawPath, String rawQuery, Map<String, List<String>> headers, byte[] body) {

    public SignedRequest {
        TreeMap<String, List<String>> byName = new TreeMap<>();
        headers.forEach((name, values) ->
                byName.merge(name.toLowerCase(Locale.ROOT), List.copyOf(values), (a, b) -> concat(a, b)));
        headers = byName;
        rawQuery = rawQuery == null ? "" : rawQuery;
        body = body == null ? new byte[0] : body;
    }

    /**
     * A request whose headers are given as received, one entry per header line (a name may repeat, in any case): how
     * a door that reads Vert.x's {@code MultiMap} or a list of entries hands them over.
     */
    public static SignedRequest ofHeaderLines(
            String method, String rawPath, String rawQuery, List<Map.Entry<String, String>> headerLines, byte[] body) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (Map.Entry<String, String> line : headerLines) {
            headers.computeIfAbsent(line.getKey().toLowerCase(Locale.ROOT), name -> new ArrayList<>())
                    .add(line.getValue());
        }
        return new SignedRequest(method, rawPath, rawQuery, headers, body);
    }

    /** The values of the header {@code lowerCaseName}, in the order received; empty when it was not sent. */
    public List<String> header(String lowerCaseName) {
        return headers.getOrDefault(lowerCaseName, List.of());
    }

    /** The first value of the header {@code lowerCaseName}, or null. */
    public String firstHeader(String lowerCaseName) {
        List<String> values = header(lowerCaseName);
        return values.isEmpty() ? null : values.get(0);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return Stream.concat(a.stream(), b.stream()).toList();
    }
}
