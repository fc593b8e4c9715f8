package io.pigeon.tenancy;

/**
 * Who a request acts as, decided once per request by the tenancy rules: the project it names or its token
 * grants (null when neither names one, which v1 and v3 answer with the default project and v2 refuses), whether it
 * holds the operator role, and whether a pre-signed URL admitted it (the receiver of a grant, not the project).
 */
public record Caller(String project, boolean operator, boolean signedUrl) {

    /** A caller admitted by its own credentials (a token, or with authentication off its headers). */
    public Caller(String project, boolean operator) {
        this(project, operator, false);
    }

    /** A caller admitted by a pre-signed URL: the grant's project, never the operator. */
    public static Caller signed(String project) {
        return new Caller(project, false, true);
    }
}
