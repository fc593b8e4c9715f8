package io.pigeon.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.rules.Rejection;
import java.util.Set;

/** A purge request (v2): which of a queue's resources to delete, from {@code resource_types} (default both). */
public final class PurgeReader {

    private static final Set<String> PURGEABLE = Set.of("messages", "subscriptions");

    /** What a purge deletes. */
    public record Purge(boolean messages, boolean subscriptions) {
        /** A purge without a document: everything. */
        public static final Purge ALL = new Purge(true, true);
    }

    private PurgeReader() {}

    public static Purge read(JsonNode document) {
        JsonNode types = document.get("resource_types");
        if (types == null) {
            return Purge.ALL;
        }
        if (!types.isArray() || types.isEmpty()) {
            throw invalidResourceTypes();
        }
        boolean messages = false;
        boolean subscriptions = false;
        for (JsonNode type : types) {
            if (!type.isTextual() || !PURGEABLE.contains(type.asText())) {
                throw invalidResourceTypes();
            }
            messages |= type.asText().equals("messages");
            subscriptions |= type.asText().equals("subscriptions");
        }
        return new Purge(messages, subscriptions);
    }

    private static Rejection invalidResourceTypes() {
        return Rejection.invalidRequest("Resource types must be a sub set of {'messages', 'subscriptions'}.");
    }
}
