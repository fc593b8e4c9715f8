package io.pigeon.message;

import java.util.HashSet;
import java.util.Set;

/**
 * The W3C trace context a message carries (docs/operations.md, Tracing; decision 0022): the {@code traceparent} of
 * the span that produced it and the {@code tracestate} that came with it, stored with the message (migration V35) and
 * shown only to a consumer that asks. Bounded as W3C Trace Context (level 1) bounds them: a {@code traceparent} is
 * kept only when it is valid (stored in version 00's form, 55 characters; a later version's first 55 characters when
 * they parse, as the recommendation reads a version it does not know), a {@code tracestate} only beside one and only
 * when it is well formed within W3C's limits of {@value #MAX_STATE_MEMBERS} list members and
 * {@value #MAX_STATE_LENGTH} characters; otherwise it is not stored, and neither is anything an invalid
 * {@code traceparent} came with. Nothing here refuses a request: a context is advice, as W3C says a receiver treats it.
 */
public record TraceContext(String traceparent, String tracestate) {

    /** The length of a version-00 {@code traceparent}, the only form stored. */
    public static final int PARENT_LENGTH = 55;

    /** W3C's bound on the list members of a {@code tracestate}. */
    public static final int MAX_STATE_MEMBERS = 32;

    /** W3C's bound on the characters of a {@code tracestate} a receiver must propagate. */
    public static final int MAX_STATE_LENGTH = 512;

    private static final int MAX_KEY_LENGTH = 256;
    private static final int MAX_VALUE_LENGTH = 256;

    /**
     * The context of a request's headers: {@code traceparent} (null: none) and {@code tracestate} (null: none; several
     * header lines already joined with commas); null when there is no valid {@code traceparent}.
     */
    public static TraceContext of(String traceparent, String tracestate) {
        String parent = parent(traceparent);
        if (parent == null) {
            return null;
        }
        return new TraceContext(parent, state(tracestate));
    }

    /** A stored context, as its columns hold it (null: none). */
    public static TraceContext stored(String traceparent, String tracestate) {
        return traceparent == null ? null : new TraceContext(traceparent, tracestate);
    }

    /** The trace id, 32 lowercase hexadecimal digits. */
    public String traceId() {
        return traceparent.substring(3, 35);
    }

    /** The id of the span that produced the message, 16 lowercase hexadecimal digits. */
    public String parentId() {
        return traceparent.substring(36, 52);
    }

    /** Whether the producer's trace was sampled (the {@code sampled} flag). */
    public boolean sampled() {
        return (Integer.parseInt(traceparent.substring(53, 55), 16) & 1) == 1;
    }

    /** The same trace state with another producer's {@code traceparent} (already valid). */
    public TraceContext withParent(String parent) {
        return new TraceContext(parent, tracestate);
    }

    /** {@code header} in version 00's form when it is a valid {@code traceparent}, else null. */
    static String parent(String header) {
        if (header == null) {
            return null;
        }
        String value = header.strip();
        if (value.length() < PARENT_LENGTH) {
            return null;
        }
        String version = value.substring(0, 2);
        if (!lowerHex(version) || version.equals("ff")) {
            return null;
        }
        // Version 00 is exactly 55 characters; a later version may append fields after a dash (W3C, versioning).
        if (version.equals("00")
                ? value.length() != PARENT_LENGTH
                : value.length() > PARENT_LENGTH && value.charAt(PARENT_LENGTH) != '-') {
            return null;
        }
        if (value.charAt(2) != '-' || value.charAt(35) != '-' || value.charAt(52) != '-') {
            return null;
        }
        String traceId = value.substring(3, 35);
        String parentId = value.substring(36, 52);
        String flags = value.substring(53, 55);
        if (!lowerHex(traceId) || !lowerHex(parentId) || !lowerHex(flags) || zeros(traceId) || zeros(parentId)) {
            return null;
        }
        return "00-" + traceId + "-" + parentId + "-" + flags;
    }

    /** {@code header} when it is a well-formed {@code tracestate} within W3C's bounds, else null. */
    static String state(String header) {
        if (header == null) {
            return null;
        }
        String value = header.strip();
        if (value.isEmpty() || value.length() > MAX_STATE_LENGTH) {
            return null;
        }
        int members = 0;
        Set<String> keys = new HashSet<>();
        for (String member : value.split(",", -1)) {
            String entry = member.strip();
            if (entry.isEmpty()) {
                continue; // W3C allows empty list members, which count for nothing
            }
            // W3C: a key appears once in the list; one that appears twice makes the list invalid.
            if (++members > MAX_STATE_MEMBERS
                    || !validMember(entry)
                    || !keys.add(entry.substring(0, entry.indexOf('=')))) {
                return null;
            }
        }
        return members == 0 ? null : value;
    }

    private static boolean validMember(String member) {
        int equals = member.indexOf('=');
        if (equals <= 0) {
            return false;
        }
        return validKey(member.substring(0, equals)) && validValue(member.substring(equals + 1));
    }

    private static boolean validKey(String key) {
        if (key.length() > MAX_KEY_LENGTH) {
            return false;
        }
        int at = key.indexOf('@');
        if (at < 0) {
            return simpleKey(key, true);
        }
        // A multi-tenant key: tenant-id (1 to 241, may start with a digit) @ system-id (1 to 14).
        String tenant = key.substring(0, at);
        String system = key.substring(at + 1);
        return tenant.length() <= 241 && system.length() <= 14 && simpleKey(tenant, false) && simpleKey(system, true);
    }

    private static boolean simpleKey(String key, boolean letterFirst) {
        if (key.isEmpty()) {
            return false;
        }
        char first = key.charAt(0);
        if (!(first >= 'a' && first <= 'z' || !letterFirst && first >= '0' && first <= '9')) {
            return false;
        }
        for (int i = 1; i < key.length(); i++) {
            char c = key.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '*' || c == '/')) {
                return false;
            }
        }
        return true;
    }

    private static boolean validValue(String value) {
        if (value.isEmpty() || value.length() > MAX_VALUE_LENGTH || value.charAt(value.length() - 1) == ' ') {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e || c == ',' || c == '=') {
                return false;
            }
        }
        return true;
    }

    private static boolean lowerHex(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    private static boolean zeros(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }
}
