package io.pigeon.accesskeys;

/**
 * The outcome of checking a signed request: the project its access key belongs to (and that key's id), or the
 * refusal AWS would answer with and a message that says what was wrong without echoing a secret.
 */
public record SignedCaller(String project, String accessKeyId, SignatureRefusal refusal, String message) {

    /** A request signed with {@code accessKeyId}, a key of {@code project}. */
    public static SignedCaller of(String project, String accessKeyId) {
        return new SignedCaller(project, accessKeyId, null, null);
    }

    /** A refused request. */
    public static SignedCaller refused(SignatureRefusal refusal, String message) {
        return new SignedCaller(null, null, refusal, message);
    }

    /** Whether the request was accepted (then {@link #project()} is set). */
    public boolean accepted() {
        return refusal == null;
    }
}
