package io.pigeon.accesskeys;

/**
 * Why a signed request is refused, named as AWS names it (the code each AWS protocol writes, the HTTP status AWS
 * answers it with), so that the SQS wire writes it as an SDK expects and the domain says nothing of HTTP beyond the
 * number AWS gives.
 */
public enum SignatureRefusal {
    /** Neither an {@code Authorization} header nor a pre-signed query string. */
    MISSING_AUTHENTICATION_TOKEN("MissingAuthenticationToken", 403),
    /** A part of the signature is missing or malformed (no credential, no date, an unknown algorithm). */
    INCOMPLETE_SIGNATURE("IncompleteSignature", 400),
    /** The access key id is not one Pigeon issued, or it was revoked. */
    INVALID_CLIENT_TOKEN_ID("InvalidClientTokenId", 403),
    /** The signature differs from the one Pigeon computes, or its scope is not this request's. */
    SIGNATURE_DOES_NOT_MATCH("SignatureDoesNotMatch", 403),
    /** The request's date is too far from the server's clock, or a pre-signed URL has expired. */
    REQUEST_EXPIRED("RequestExpired", 400);

    private final String code;
    private final int status;

    SignatureRefusal(String code, int status) {
        this.code = code;
        this.status = status;
    }

    /** AWS's error code ({@code __type} in JSON, {@code Code} in XML). */
    public String code() {
        return code;
    }

    /** The HTTP status AWS answers this refusal with. */
    public int status() {
        return status;
    }
}
