package io.pigeon.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.claim.ClaimService;
import io.pigeon.rules.Rejection;
import java.util.ArrayList;
import java.util.List;

/**
 * The body of a release of single messages of a claim, {@code {"ids": [...], "delay": seconds}}, read at the edge into
 * {@link ClaimService.RequestedRelease}: the document's shape and field types are checked here, the bounds by the claim
 * service. Other fields are ignored, as Zaqar ignores the unknown fields of its claim bodies.
 */
public final class ClaimReleaseReader {

    private ClaimReleaseReader() {}

    public static ClaimService.RequestedRelease read(byte[] document) {
        JsonNode body = JsonBodyReader.parse(document);
        if (!body.isObject()) {
            throw Rejection.invalidBody("Document type not supported. A release is a JSON object with an \"ids\" field "
                    + "(a list of message ids) and, optionally, a \"delay\" field.");
        }
        JsonNode delay = body.get("delay");
        return new ClaimService.RequestedRelease(
                ids(body.get("ids")), delay == null ? null : JsonBodyReader.integerField("delay", delay));
    }

    private static List<String> ids(JsonNode value) {
        if (value == null) {
            return null;
        }
        if (!value.isArray()) {
            throw Rejection.invalidBody("The value of the \"ids\" field must be a list of message ids (strings).");
        }
        List<String> ids = new ArrayList<>(value.size());
        for (JsonNode id : value) {
            if (!id.isTextual()) {
                throw Rejection.invalidBody("The value of the \"ids\" field must be a list of message ids (strings).");
            }
            ids.add(id.textValue());
        }
        return ids;
    }
}
