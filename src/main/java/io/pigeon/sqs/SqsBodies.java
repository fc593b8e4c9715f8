package io.pigeon.sqs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.json.StrictJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The one rule between an SQS body (a string) and a Zaqar body (a JSON document), so that both APIs read the same
 * rows (decision 0019): SendMessage stores its body as a JSON string; a message whose stored body is a JSON string is
 * received through SQS as that string, any other JSON as its compact text (Zaqar stores bodies compact). Also the
 * characters SQS lets a body (and a string attribute) hold: #x9, #xA, #xD, #x20 to #xD7FF, #xE000 to #xFFFD and
 * #x10000 to #x10FFFF (no lone surrogate).
 */
public final class SqsBodies {

    private static final ObjectMapper JSON = new ObjectMapper();

    private SqsBodies() {}

    /** Whether every character of {@code text} is one SQS allows in a message. */
    public static boolean allowedCharacters(String text) {
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            boolean allowed = c == 0x9
                    || c == 0xA
                    || c == 0xD
                    || (c >= 0x20 && c <= 0xD7FF)
                    || (c >= 0xE000 && c <= 0xFFFD)
                    || (c >= 0x10000 && c <= 0x10FFFF);
            if (!allowed) {
                return false;
            }
            i += Character.charCount(c);
        }
        return true;
    }

    /** Checks an SQS body: present, not empty, and only of the characters SQS allows. */
    public static void check(String body) {
        if (body == null) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.MISSING_PARAMETER, "The request must contain the parameter MessageBody.");
        }
        if (body.isEmpty()) {
            throw SqsRefusal.invalidValue("The parameter MessageBody must be at least 1 character long.");
        }
        if (!allowedCharacters(body)) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.INVALID_MESSAGE_CONTENTS,
                    "The message body contains characters outside the allowed set (#x9, #xA, #xD, #x20 to #xD7FF,"
                            + " #xE000 to #xFFFD, #x10000 to #x10FFFF).");
        }
    }

    /** The size an SQS body counts toward a message's size: its UTF-8 bytes. */
    public static long size(String body) {
        return body.getBytes(StandardCharsets.UTF_8).length;
    }

    /** The Zaqar body (compact JSON text) that stores an SQS body: a JSON string. */
    public static String stored(String body) {
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a string is always written as JSON", e);
        }
    }

    /** The SQS body of a stored (Zaqar) body: a JSON string's text, else the compact JSON text as stored. */
    public static String received(String storedBody) {
        if (storedBody.isEmpty() || storedBody.charAt(0) != '"') {
            return storedBody;
        }
        try {
            return allowedOnly(
                    StrictJson.read(storedBody.getBytes(StandardCharsets.UTF_8)).textValue());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code text} with every character SQS does not allow in a body as U+FFFD: a JSON string posted through Zaqar may
     * escape any of them, and SQS clients could not read such a body (the query protocol's XML cannot carry it), so the
     * body received, and the digest computed from it, hold the replacement instead.
     */
    private static String allowedOnly(String text) {
        if (allowedCharacters(text)) {
            return text;
        }
        StringBuilder replaced = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            replaced.appendCodePoint(allowedCharacters(Character.toString(c)) ? c : 0xFFFD);
            i += Character.charCount(c);
        }
        return replaced.toString();
    }
}
