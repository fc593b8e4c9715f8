package io.pigeon.api.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.sqs.SqsRefusal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** An action's input as AWS JSON 1.0 carries it: one JSON object whose members are named as AWS's model names them. */
final class JsonParameters implements SqsParameters {

    private final ObjectNode object;

    JsonParameters(ObjectNode object) {
        this.object = object;
    }

    static JsonParameters empty() {
        return new JsonParameters(JsonNodeFactory.instance.objectNode());
    }

    @Override
    public Optional<String> string(String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isTextual()) {
            throw SqsRefusal.invalidParameter(name, value.toString(), "must be a string.");
        }
        return Optional.of(value.textValue());
    }

    @Override
    public Optional<Integer> integer(String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw SqsRefusal.invalidParameter(name, value.toString(), "must be an integer.");
        }
        return Optional.of(value.intValue());
    }

    @Override
    public Optional<Boolean> bool(String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isBoolean()) {
            throw SqsRefusal.invalidParameter(name, value.toString(), "must be true or false.");
        }
        return Optional.of(value.booleanValue());
    }

    @Override
    public List<String> strings(String jsonName, String queryMember) {
        List<String> strings = new ArrayList<>();
        for (JsonNode member : array(jsonName)) {
            if (!member.isTextual()) {
                throw SqsRefusal.invalidParameter(jsonName, member.toString(), "every member must be a string.");
            }
            strings.add(member.textValue());
        }
        return strings;
    }

    @Override
    public Map<String, String> map(String jsonName, String queryEntry, String queryKey, String queryValue) {
        Map<String, String> map = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : members(jsonName)) {
            if (!entry.getValue().isTextual()) {
                throw SqsRefusal.invalidParameter(
                        jsonName + "." + entry.getKey(), entry.getValue().toString(), "must be a string.");
            }
            map.put(entry.getKey(), entry.getValue().textValue());
        }
        return map;
    }

    @Override
    public List<SqsParameters> structures(String jsonName, String queryMember) {
        List<SqsParameters> structures = new ArrayList<>();
        for (JsonNode member : array(jsonName)) {
            if (!member.isObject()) {
                throw SqsRefusal.invalidParameter(jsonName, member.toString(), "every member must be an object.");
            }
            structures.add(new JsonParameters((ObjectNode) member));
        }
        return structures;
    }

    @Override
    public Map<String, SqsParameters> structureMap(
            String jsonName, String queryEntry, String queryKey, String queryValue) {
        Map<String, SqsParameters> map = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : members(jsonName)) {
            if (!entry.getValue().isObject()) {
                throw SqsRefusal.invalidParameter(
                        jsonName + "." + entry.getKey(), entry.getValue().toString(), "must be an object.");
            }
            map.put(entry.getKey(), new JsonParameters((ObjectNode) entry.getValue()));
        }
        return map;
    }

    private Iterable<JsonNode> array(String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw SqsRefusal.invalidParameter(name, value.toString(), "must be a list.");
        }
        if (value.size() > MAX_MEMBERS) {
            throw SqsParameters.tooMany(name);
        }
        return value;
    }

    /** The members of an object (duplicate keys were refused when the document was read). */
    private List<Map.Entry<String, JsonNode>> members(String name) {
        JsonNode value = object.get(name);
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isObject()) {
            throw SqsRefusal.invalidParameter(name, value.toString(), "must be a map.");
        }
        if (value.size() > MAX_MEMBERS) {
            throw SqsParameters.tooMany(name);
        }
        List<Map.Entry<String, JsonNode>> members = new ArrayList<>(value.size());
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            members.add(it.next());
        }
        return members;
    }
}
