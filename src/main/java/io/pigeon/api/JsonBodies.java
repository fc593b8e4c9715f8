package io.pigeon.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.json.StrictJson;
import io.pigeon.rules.Rejection;
import java.io.IOException;

/** Reads request bodies as JSON trees: a document is either understood whole or refused with 400. */
public final class JsonBodies {

    private JsonBodies() {
    }

    /** Parses a required JSON body (its Content-Type is checked by the resource, before). */
    public static JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) {
            throw ApiException.invalidBody("Request body can not be empty");
        }
        try {
            JsonNode node = StrictJson.read(body);
            if (node == null || node.isMissingNode()) {
                throw ApiException.invalidBody("Request body can not be empty");
            }
            return node;
        } catch (IOException e) {
            throw ApiException.invalidBody("Request body could not be parsed.");
        }
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
