package io.pigeon.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.api.ApiVersion;
import io.pigeon.claim.ClaimService;
import io.pigeon.rules.Rejection;

/**
 * Claim request bodies, read at the edge into {@link ClaimService.RequestedTerms}: the document's shape and
 * field types are checked here, the bounds by the claim service.
 */
public final class ClaimTermsReader {

    private ClaimTermsReader() {}

    /** A claim's terms; where the version requires them (v1), both ttl and grace, else either may be absent. */
    public static ClaimService.RequestedTerms claim(byte[] document, ApiVersion version) {
        boolean required = version.requiresClaimTerms();
        JsonNode body = object(document, "A claim is a JSON object with \"ttl\" and \"grace\" fields.");
        return new ClaimService.RequestedTerms(field(body, "ttl", required), field(body, "grace", required));
    }

    /**
     * A claim's terms and, except in v1 (whose claim body is Zaqar v1's: ttl and grace), its {@code wait} (Pigeon's
     * long polling; null when absent), 0 to {@code maxWait} seconds.
     */
    public static Claim claimWithWait(byte[] document, ApiVersion version, int maxWait) {
        boolean required = version.requiresClaimTerms();
        JsonNode body = object(document, "A claim is a JSON object with \"ttl\" and \"grace\" fields.");
        return new Claim(
                new ClaimService.RequestedTerms(field(body, "ttl", required), field(body, "grace", required)),
                version == ApiVersion.V1 ? null : WaitReader.fromBody(body, maxWait));
    }

    /** A claim request's terms and the wait its body asks for (null: none). */
    public record Claim(ClaimService.RequestedTerms terms, Integer waitSeconds) {}

    /** A claim renewal: its ttl (required where the version requires the terms, v1) and, optionally, a grace. */
    public static ClaimService.RequestedTerms renewal(byte[] document, ApiVersion version) {
        boolean ttlRequired = version.requiresClaimTerms();
        JsonNode body = object(document, "A claim update is a JSON object with a \"ttl\" field.");
        return new ClaimService.RequestedTerms(field(body, "ttl", ttlRequired), field(body, "grace", false));
    }

    private static JsonNode object(byte[] document, String shape) {
        JsonNode body = JsonBodyReader.parse(document);
        if (!body.isObject()) {
            throw Rejection.invalidBody("Document type not supported. " + shape);
        }
        return body;
    }

    private static Integer field(JsonNode body, String name, boolean required) {
        JsonNode value = body.get(name);
        if (value == null) {
            if (required) {
                throw Rejection.invalidBody("Missing \"" + name + "\" field.");
            }
            return null;
        }
        return JsonBodyReader.integerField(name, value);
    }
}
