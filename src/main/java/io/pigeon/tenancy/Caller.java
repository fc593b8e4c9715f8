package io.pigeon.tenancy;

import java.time.Instant;
import java.util.Optional;

/**
 * Who a request acts as, decided once per request by the tenancy rules: the project it names or its token
 * grants (null when neither names one, which v1 and v3 answer with the default project and v2 refuses), whether it
 * holds the operator role, and, when a pre-signed URL admitted it (the receiver of a grant, not the project), that
 * grant's expiry and signature (null otherwise): the expiry tells one confirmation request from another, the signature
 * is what the grant's own bounds count against ({@code pigeon.signed-url.max-waiters-per-grant},
 * {@code pigeon.signed-url.max-sockets-per-grant}), so that a grant's holder never uses up the project's.
 */
public record Caller(String project, boolean operator, Instant signedUntil, String grant) {

    /** A caller admitted by its own credentials (a token, or with authentication off its headers). */
    public Caller(String project, boolean operator) {
        this(project, operator, null, null);
    }

    /**
     * A caller admitted by a pre-signed URL expiring {@code until}, whose signature is {@code signature} (as the server
     * checked it: one spelling per grant): the grant's project, never the operator.
     */
    public static Caller signed(String project, Instant until, String signature) {
        return new Caller(project, false, until, signature);
    }

    /** The expiry of the pre-signed URL that admitted the request; empty when its own credentials did. */
    public Optional<Instant> grantExpiry() {
        return Optional.ofNullable(signedUntil);
    }

    /** The signature of the pre-signed URL that admitted the request; empty when its own credentials did. */
    public Optional<String> grantSignature() {
        return Optional.ofNullable(grant);
    }
}
