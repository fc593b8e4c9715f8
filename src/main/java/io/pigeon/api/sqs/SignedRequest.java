package io.pigeon.api.sqs;

import java.util.List;
import java.util.Map;

/**
 * An SQS request as its signature covers it: the method, the path and the query string as sent (not decoded), every
 * header in order (a name may repeat), and the body's bytes. What a Signature Version 4 verifier reads.
 */
public record SignedRequest(
        String method, String rawPath, String rawQuery, List<Map.Entry<String, String>> headers, byte[] body) {

    /** The first value of a header, by name in any case; null when absent. */
    public String header(String name) {
        for (Map.Entry<String, String> header : headers) {
            if (header.getKey().equalsIgnoreCase(name)) {
                return header.getValue();
            }
        }
        return null;
    }
}
