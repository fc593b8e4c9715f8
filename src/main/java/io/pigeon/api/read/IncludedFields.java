package io.pigeon.api.read;

import io.pigeon.api.ApiVersion;
import java.util.List;

/**
 * Which optional fields a request asks its message documents to carry ({@code ?include=claim_count}, comma-separated
 * or repeated, as {@code ids}). v2 documents always carry {@code claim_count}: Zaqar's clients read it (pop answers
 * have it). v1.1 documents carry it only when asked for: Zaqar's own v1.1 suite validates them against schemas that
 * forbid any other key. {@code ?include=group} adds each message's group, in v1.1 and v2 (v1 has no groups);
 * {@code ?include=trace} each message's trace context (its {@code traceparent} and {@code tracestate}), likewise.
 * Values this server does not know are ignored, as Zaqar ignores parameters it does not know.
 */
public final class IncludedFields {

    /** The value of {@code include} that asks for {@code claim_count} (and a pop's {@code claim_id}). */
    public static final String CLAIM_COUNT = "claim_count";

    /**
     * The value of {@code include} that asks for each message's {@code group} (Pigeon's, every version): without it no
     * answer names a group, so that every answer stays byte for byte Zaqar's (python-zaqarclient refuses keys it does
     * not know).
     */
    public static final String GROUP = "group";

    /**
     * The value of {@code include} that asks for each message's {@code trace} (Pigeon's, v1.1 and v2): without it no
     * answer shows a trace context, for the same reason as {@link #GROUP}.
     */
    public static final String TRACE = "trace";

    private IncludedFields() {}

    /** The optional fields a request's message documents carry. */
    public record Shown(boolean claimCount, boolean group, boolean trace) {

        /**
         * The {@code include} value that asks {@code version}'s documents for what this shows (null: nothing beyond
         * what they always carry), for a listing's next link: the next page shows what the first showed.
         */
        public String parameter(ApiVersion version) {
            boolean askedCount = claimCount && version != ApiVersion.V2;
            StringBuilder asked = new StringBuilder();
            for (String value :
                    new String[] {askedCount ? CLAIM_COUNT : null, group ? GROUP : null, trace ? TRACE : null}) {
                if (value != null) {
                    asked.append(asked.isEmpty() ? "" : ",").append(value);
                }
            }
            return asked.isEmpty() ? null : asked.toString();
        }
    }

    /** What the documents of {@code version} carry for a request with these include values. */
    public static Shown shown(ApiVersion version, List<String> include) {
        List<String> named = IdListReader.of(include);
        return new Shown(
                claimCount(version, include),
                named != null && named.contains(GROUP),
                named != null && named.contains(TRACE));
    }

    /** Whether the documents of {@code version} carry {@code claim_count} for a request with these include values. */
    public static boolean claimCount(ApiVersion version, List<String> include) {
        if (version == ApiVersion.V2) {
            return true;
        }
        List<String> named = IdListReader.of(include);
        return version == ApiVersion.V1_1 && named != null && named.contains(CLAIM_COUNT);
    }
}
