package io.pigeon.api.read;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.json.StrictJson;
import io.pigeon.rules.Rejection;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Map;

/** Reads request bodies as JSON trees: a document is either understood whole or refused with 400. */
public final class JsonBodyReader {

    private JsonBodyReader() {}

    /** Parses a required JSON body (its Content-Type is checked by the resource, before). */
    public static JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) {
            throw Rejection.invalidBody("Request body can not be empty");
        }
        try {
            JsonNode node = StrictJson.read(body);
            if (node == null || node.isMissingNode()) {
                throw Rejection.invalidBody("Request body can not be empty");
            }
            requireWholeCharacters(node);
            return node;
        } catch (NumberFormatException | ArithmeticException e) {
            // BigDecimal's exponent is an int: 1e2147483648 cannot be read as any number at all.
            throw Rejection.invalidBody("Request body could not be parsed: a number's exponent is beyond "
                    + Integer.MAX_VALUE + " (either sign).");
        } catch (IOException e) {
            for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
                if (t instanceof StreamConstraintsException bound) {
                    throw Rejection.invalidBody(beyond(bound));
                }
            }
            throw Rejection.invalidBody("Request body could not be parsed.");
        }
    }

    /**
     * Refuses a string or key holding half of a surrogate pair (JSON lets {@code "\\udfff"} be written; no UTF-8
     * text can hold it, so it would be stored as "?" and read back as something else than was accepted).
     */
    private static void requireWholeCharacters(JsonNode document) {
        Deque<JsonNode> pending = new ArrayDeque<>();
        pending.push(document);
        while (!pending.isEmpty()) {
            JsonNode node = pending.pop();
            if (node.isTextual()) {
                requireWholeCharacters(node.textValue());
            } else if (node.isObject()) {
                for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                    Map.Entry<String, JsonNode> field = fields.next();
                    requireWholeCharacters(field.getKey());
                    pending.push(field.getValue());
                }
            } else if (node.isArray()) {
                node.forEach(pending::push);
            }
        }
    }

    private static void requireWholeCharacters(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw Rejection.invalidBody("Request body could not be parsed: a string holds an unpaired "
                        + "surrogate (\\u" + Integer.toHexString(c) + "), which is no character.");
            }
        }
    }

    /**
     * Jackson's own bounds: a number's written length (a longer number is one no client means), nesting depth, a
     * string's length. The reader's bound is named.
     */
    private static String beyond(StreamConstraintsException bound) {
        String what = bound.getOriginalMessage();
        if (what != null && what.startsWith("Number value length")) {
            return "Request body could not be parsed: a number is written with more than "
                    + StreamReadConstraints.defaults().getMaxNumberLength() + " characters.";
        }
        if (what != null && what.startsWith("Document nesting depth")) {
            return "Request body could not be parsed: it nests deeper than "
                    + StreamReadConstraints.defaults().getMaxNestingDepth() + " levels.";
        }
        return "Request body could not be parsed: a string is longer than "
                + StreamReadConstraints.defaults().getMaxStringLength() + " characters.";
    }

    /**
     * Reads an integer field strictly: 60 and "60" differ, and 60.5 is not an integer. Integers beyond
     * int's range are clamped, so that the caller's bound check names the bound.
     */
    public static int integerField(String name, JsonNode value) {
        if (!value.isIntegralNumber()) {
            throw Rejection.invalidBody("The value of the \"" + name + "\" field must be a int.");
        }
        if (!value.canConvertToInt()) {
            return value.bigIntegerValue().signum() > 0 ? Integer.MAX_VALUE : Integer.MIN_VALUE;
        }
        return value.intValue();
    }
}
