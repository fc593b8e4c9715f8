package io.pigeon.api.ws;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Zaqar's per-action schema of a request frame (its {@code zaqar/api/v2/request.py}): the headers every action
 * needs, spelled exactly ({@code X-Project-Id} is not {@code X-Project-ID}), and the JSON types of the body's
 * fields ({@code "1"} is no integer, {@code 1.0} neither). A frame that breaks it is answered 400 "Schema
 * validation failed." before any rule runs; the values themselves are the services' to judge.
 */
final class FrameSchema {

    enum Type {
        STRING,
        INTEGER,
        BOOLEAN,
        ARRAY,
        STRINGS,
        OBJECT
    }

    /** A body field: its name, its type, and whether the action needs it. */
    record Field(String name, Type type, boolean required) {}

    static final String CLIENT_ID = "Client-ID";
    static final String PROJECT_ID = "X-Project-ID";
    static final String AUTH_TOKEN = "X-Auth-Token";

    private static final Field QUEUE_NAME = required("queue_name", Type.STRING);

    /** The twenty actions served, with their body fields. */
    static final Map<String, List<Field>> SERVED = Map.ofEntries(
            Map.entry(
                    "queue_list",
                    List.of(
                            optional("marker", Type.STRING),
                            optional("limit", Type.INTEGER),
                            optional("detailed", Type.BOOLEAN))),
            Map.entry("queue_create", List.of(QUEUE_NAME, optional("metadata", Type.OBJECT))),
            Map.entry("queue_get", List.of(QUEUE_NAME)),
            Map.entry("queue_delete", List.of(QUEUE_NAME)),
            Map.entry("queue_get_stats", List.of(QUEUE_NAME)),
            Map.entry("queue_purge", List.of(QUEUE_NAME, optional("resource_types", Type.ARRAY))),
            Map.entry("message_post", List.of(QUEUE_NAME, required("messages", Type.ARRAY))),
            Map.entry(
                    "message_list",
                    List.of(
                            QUEUE_NAME,
                            optional("marker", Type.STRING),
                            optional("limit", Type.INTEGER),
                            optional("echo", Type.BOOLEAN),
                            optional("include_claimed", Type.BOOLEAN))),
            Map.entry("message_get", List.of(QUEUE_NAME, required("message_id", Type.STRING))),
            Map.entry("message_get_many", List.of(QUEUE_NAME, required("message_ids", Type.STRINGS))),
            Map.entry(
                    "message_delete",
                    List.of(QUEUE_NAME, required("message_id", Type.STRING), optional("claim_id", Type.STRING))),
            Map.entry(
                    "message_delete_many",
                    List.of(
                            QUEUE_NAME,
                            optional("message_ids", Type.STRINGS),
                            optional("claim_ids", Type.STRINGS),
                            optional("pop", Type.INTEGER))),
            Map.entry(
                    "claim_create",
                    List.of(
                            QUEUE_NAME,
                            optional("limit", Type.INTEGER),
                            optional("ttl", Type.INTEGER),
                            optional("grace", Type.INTEGER))),
            Map.entry("claim_get", List.of(QUEUE_NAME, required("claim_id", Type.STRING))),
            Map.entry(
                    "claim_update",
                    List.of(
                            QUEUE_NAME,
                            required("claim_id", Type.STRING),
                            optional("ttl", Type.INTEGER),
                            optional("grace", Type.INTEGER))),
            Map.entry("claim_delete", List.of(QUEUE_NAME, required("claim_id", Type.STRING))),
            Map.entry(
                    "subscription_create",
                    List.of(
                            QUEUE_NAME,
                            optional("subscriber", Type.STRING),
                            optional("ttl", Type.INTEGER),
                            optional("options", Type.OBJECT))),
            Map.entry("subscription_get", List.of(QUEUE_NAME, required("subscription_id", Type.STRING))),
            Map.entry(
                    "subscription_list",
                    List.of(QUEUE_NAME, optional("marker", Type.STRING), optional("limit", Type.INTEGER))),
            Map.entry("subscription_delete", List.of(QUEUE_NAME, required("subscription_id", Type.STRING))));

    static final String AUTHENTICATE = "authenticate";

    /**
     * The actions Zaqar 15 declares (they have a schema) but has no endpoint for: its handler raises on them and the
     * socket goes deaf. Pigeon answers them (see {@link SocketActions}).
     */
    static final Set<String> UNSERVED = Set.of(
            "get_home_doc",
            "ping_node",
            "check_node_health",
            "pool_list",
            "pool_create",
            "pool_get",
            "pool_update",
            "pool_delete",
            "flavor_list",
            "flavor_create",
            "flavor_get",
            "flavor_update",
            "flavor_delete");

    private FrameSchema() {}

    private static Field required(String name, Type type) {
        return new Field(name, type, true);
    }

    private static Field optional(String name, Type type) {
        return new Field(name, type, false);
    }

    /**
     * Whether a frame for a served action has the headers and the body fields its schema asks for; the project
     * header only where {@code projectRequired} (a socket holding a token may leave it to the token).
     */
    static boolean valid(SocketRequest request, List<Field> fields, boolean projectRequired) {
        if (!(projectRequired ? hasHeaders(request, CLIENT_ID, PROJECT_ID) : hasHeaders(request, CLIENT_ID))) {
            return false;
        }
        if (request.body() != null && !request.body().isObject()) {
            return false;
        }
        JsonNode body = request.fields();
        for (Field field : fields) {
            JsonNode value = body.get(field.name());
            if (value == null) {
                if (field.required()) {
                    return false;
                }
            } else if (!hasType(value, field.type())) {
                return false;
            }
        }
        return true;
    }

    /** Whether the frame's headers are an object holding each of {@code names} as a string. */
    static boolean hasHeaders(SocketRequest request, String... names) {
        if (request.headers() == null || !request.headers().isObject()) {
            return false;
        }
        for (String name : names) {
            if (request.header(name) == null) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasType(JsonNode value, Type type) {
        return switch (type) {
            case STRING -> value.isTextual();
            case INTEGER -> value.isIntegralNumber();
            case BOOLEAN -> value.isBoolean();
            case ARRAY -> value.isArray();
            case STRINGS -> value.isArray() && allText(value);
            case OBJECT -> value.isObject();
        };
    }

    private static boolean allText(JsonNode array) {
        for (JsonNode item : array) {
            if (!item.isTextual()) {
                return false;
            }
        }
        return true;
    }
}
