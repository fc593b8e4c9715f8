package io.pigeon.api.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.read.JsonBodyReader;
import io.pigeon.api.read.QueueMetadataReader;
import io.pigeon.config.PigeonConfig;
import io.pigeon.queue.ClaimWaitSettings;
import io.pigeon.queue.IdempotencySettings;
import io.pigeon.queue.ReservedAttributes;
import io.pigeon.rules.Rejection;
import io.quarkus.qute.TemplateData;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The console's forms that write a queue's metadata (a new queue's, and an existing queue's replaced): the document a
 * form makes, read by the API's own metadata reader, and the forms as they are shown, with one field per scalar
 * reserved attribute and its bounds from this deployment's settings. A plain class over the settings.
 */
public final class MetadataForms {

    /** How a reserved attribute's field is read: a number, a boolean, or text (a queue's name). */
    private enum Kind {
        NUMBER,
        BOOLEAN,
        TEXT
    }

    private record Field(String name, Kind kind) {}

    /**
     * The reserved attributes the metadata form gives a field of its own, as docs/api/v2.md lists them: the scalar
     * ones. The structured ones ({@code _retry_policy}, {@code _flavor}) stay in the JSON text, as the API takes them.
     */
    private static final List<Field> RESERVED_FIELDS = List.of(
            new Field(ReservedAttributes.MAX_MESSAGES_POST_SIZE, Kind.NUMBER),
            new Field(ReservedAttributes.DEFAULT_MESSAGE_TTL, Kind.NUMBER),
            new Field(ReservedAttributes.DEFAULT_MESSAGE_DELAY, Kind.NUMBER),
            new Field(ReservedAttributes.MAX_CLAIM_COUNT, Kind.NUMBER),
            new Field(ReservedAttributes.DEAD_LETTER_QUEUE, Kind.TEXT),
            new Field(ReservedAttributes.DEAD_LETTER_QUEUE_MESSAGES_TTL, Kind.NUMBER),
            new Field(ReservedAttributes.ENABLE_ENCRYPT_MESSAGES, Kind.BOOLEAN),
            new Field(ReservedAttributes.CLAIM_WAIT_SECONDS, Kind.NUMBER),
            new Field(ReservedAttributes.DEDUP_WINDOW_SECONDS, Kind.NUMBER));

    /** The fields the new-queue form sends (ConsoleFormBody drops any other). */
    static final Set<String> NEW_QUEUE_FIELDS = Set.of(ConsoleForms.FIELD, "name", "metadata");

    /** The fields the metadata form sends. */
    static final Set<String> METADATA_FIELDS = Stream.concat(
                    Stream.of(ConsoleForms.FIELD, "metadata"),
                    RESERVED_FIELDS.stream().map(Field::name))
            .collect(Collectors.toUnmodifiableSet());

    /** Longest value a reserved attribute's field passes on: past it, no valid value exists (a queue name is 64). */
    private static final int RESERVED_FIELD_CHARS = 128;

    /** One reserved attribute's field on the metadata form: its name, what was typed (blank: unset), its bounds. */
    @TemplateData
    public record ReservedField(String name, String id, String value, String bounds) {}

    /** The metadata form: the plain keys as a JSON object, one field per scalar reserved attribute. */
    @TemplateData
    public record MetadataForm(
            ConsoleViews.Frame frame,
            String queue,
            String queueHref,
            String actionHref,
            String csrf,
            String error,
            String metadata,
            List<ReservedField> fields) {}

    /** The form that creates a queue, blank or as typed with the refusal. */
    @TemplateData
    public record NewQueue(
            ConsoleViews.Frame frame, String actionHref, String csrf, String error, String name, String metadata) {}

    private final PigeonConfig config;
    private final ClaimWaitSettings claimWaitSettings;
    private final IdempotencySettings idempotencySettings;

    MetadataForms(PigeonConfig config, ClaimWaitSettings claimWaitSettings, IdempotencySettings idempotencySettings) {
        this.claimWaitSettings = claimWaitSettings;
        this.idempotencySettings = idempotencySettings;
        this.config = config;
    }

    /** The reserved fields' values a form sent (those it holds), by attribute. */
    static Map<String, String> typed(ConsoleFormBody form) {
        Map<String, String> typed = new HashMap<>();
        for (Field field : RESERVED_FIELDS) {
            String value = form.get(field.name());
            if (value != null) {
                typed.put(field.name(), value);
            }
        }
        return typed;
    }

    /** Takes the reserved fields' values out of a stored document (left with its other keys), by attribute. */
    static Map<String, String> takenOut(ObjectNode stored) {
        Map<String, String> values = new HashMap<>();
        for (Field field : RESERVED_FIELDS) {
            JsonNode value = stored.remove(field.name());
            if (value != null && !value.isNull()) {
                values.put(field.name(), value.isTextual() ? value.textValue() : value.toString());
            }
        }
        return values;
    }

    /**
     * The metadata document a form makes: its JSON text (an object), with each reserved field that is not blank set
     * into it, read by the API's metadata reader. Field values are passed on as the API would receive them (a number
     * as a number, true or false as a boolean), so the queue service refuses them with the API's words.
     */
    ObjectNode document(String text, Map<String, String> typed) {
        byte[] bytes = (text == null || text.isBlank() ? "{}" : text).getBytes(StandardCharsets.UTF_8);
        if (bytes.length > config.maxQueueMetadata()) {
            throw Rejection.invalidParameter(
                    "metadata", "It may be at most " + config.maxQueueMetadata() + " bytes (max-queue-metadata).");
        }
        JsonNode parsed;
        try {
            parsed = JsonBodyReader.parse(bytes);
        } catch (Rejection notJson) {
            throw Rejection.invalidParameter("metadata", "It must be a JSON object: " + notJson.description());
        }
        if (!parsed.isObject()) {
            throw Rejection.invalidParameter("metadata", "It must be a JSON object, such as {\"owner\": \"team-a\"}.");
        }
        ObjectNode document = (ObjectNode) parsed;
        for (Field field : RESERVED_FIELDS) {
            String value = typed.get(field.name());
            if (value == null || value.isBlank()) {
                continue;
            }
            String trimmed = value.strip();
            if (trimmed.length() > RESERVED_FIELD_CHARS) {
                trimmed = trimmed.substring(0, RESERVED_FIELD_CHARS);
            }
            switch (field.kind()) {
                case NUMBER -> ConsoleFormBody.putAsTheApiTakesIt(document, field.name(), trimmed);
                case BOOLEAN -> {
                    if (trimmed.equals("true") || trimmed.equals("false")) {
                        document.put(field.name(), Boolean.parseBoolean(trimmed));
                    } else {
                        document.put(field.name(), trimmed);
                    }
                }
                case TEXT -> document.put(field.name(), trimmed);
            }
        }
        return QueueMetadataReader.metadata(
                document.toString().getBytes(StandardCharsets.UTF_8), config.maxQueueMetadata());
    }

    /** The metadata form of queue {@code queue}: the JSON text, the reserved fields' values, a refusal or null. */
    MetadataForm metadataForm(
            ConsolePages.Call call, String queue, String error, String metadata, Map<String, String> values) {
        String queueHref = call.frame().projectHref() + "/queues/" + queue;
        List<ReservedField> fields = new ArrayList<>(RESERVED_FIELDS.size());
        for (Field field : RESERVED_FIELDS) {
            fields.add(new ReservedField(
                    field.name(),
                    "field" + field.name().replace('_', '-'),
                    values.getOrDefault(field.name(), ""),
                    bounds(field.name())));
        }
        return new MetadataForm(
                call.frame(), queue, queueHref, queueHref + "/metadata", call.token(), error, metadata, fields);
    }

    /** The new-queue form, blank or as typed with a refusal (the name cut to a queue name's longest). */
    static NewQueue newQueueForm(ConsolePages.Call call, String error, String name, String metadata) {
        return new NewQueue(
                call.frame(),
                call.frame().projectHref() + "/new-queue",
                call.token(),
                error,
                name.length() > 64 ? name.substring(0, 64) : name,
                metadata);
    }

    /** A reserved attribute's bounds and default, from this deployment's settings, as docs/api/v2.md states them. */
    private String bounds(String attribute) {
        return switch (attribute) {
            case ReservedAttributes.MAX_MESSAGES_POST_SIZE -> "1 to " + config.maxMessagesPostSize() + " bytes";
            case ReservedAttributes.DEFAULT_MESSAGE_TTL -> "60 to " + config.maxMessageTtl() + " s; default "
                    + config.defaultMessageTtl();
            case ReservedAttributes.DEFAULT_MESSAGE_DELAY -> "0 to " + config.maxMessageDelay() + " s; default 0";
            case ReservedAttributes.MAX_CLAIM_COUNT -> "1 or more, with a dead-letter queue";
            case ReservedAttributes.DEAD_LETTER_QUEUE -> "a queue's name";
            case ReservedAttributes.DEAD_LETTER_QUEUE_MESSAGES_TTL -> "60 to " + config.maxMessageTtl() + " s";
            case ReservedAttributes.ENABLE_ENCRYPT_MESSAGES -> "true or false; default false";
            case ReservedAttributes.CLAIM_WAIT_SECONDS -> "0 to " + claimWaitSettings.max() + " s";
            case ReservedAttributes.DEDUP_WINDOW_SECONDS -> "1 to "
                    + idempotencySettings.maxWindow() + " s; default "
                    + idempotencySettings.defaultWindow();
            default -> "";
        };
    }
}
