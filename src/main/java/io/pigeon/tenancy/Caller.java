package io.pigeon.tenancy;

import java.time.Instant;
import java.util.Optional;

/**
 * Who a request acts as, decided once per request by the tenancy rules: the project it names or its token
 * grants (null when neither names one, which v1 and v3 answer with the default project and v2 refuses), whether it
 * holds the operator role, and, when a pre-signed URL admitted it (the receiver of a grant, not the project), that
 * grant's expiry (null otherwise), which tells one confirmation request from another.
 */
public record Caller(String project, boolean operator, Instant signedUntil) {

    /** A caller admitted by its own credentials (a token, or with authentication off its headers). */
    public Caller(String project, boolean operator) {
        this(project, operator, null);
    }

    /** A caller admitted by a pre-signed URL expiring {@code until}: the grant's project, never the operator. */
    public static Caller signed(String project, Instant until) {
        return new Caller(project, false, until);
    }

    /** The expiry of the pre-signed URL that admitted the request; empty when its own credentials did. */
    public Optional<Instant> grantExpiry() {
        return Optional.ofNullable(signedUntil);
    }
}
