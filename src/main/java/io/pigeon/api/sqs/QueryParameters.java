package io.pigeon.api.sqs;

import io.pigeon.sqs.SqsRefusal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An action's input as the query protocol carries it: flat names, lists and maps spelled with 1-based indexes
 * ({@code AttributeName.1}, {@code Attribute.1.Name}, {@code Attribute.1.Value}), a structure's fields after its
 * member's prefix ({@code SendMessageBatchRequestEntry.1.Id}). Members are read from index 1 on until one is missing,
 * as AWS does, and at most {@link SqsParameters#MAX_MEMBERS} of them.
 */
final class QueryParameters implements SqsParameters {

    private final Map<String, String> values;
    /** Where this structure's fields start ("" for the action's input). */
    private final String prefix;

    QueryParameters(Map<String, String> values) {
        this(values, "");
    }

    private QueryParameters(Map<String, String> values, String prefix) {
        this.values = values;
        this.prefix = prefix;
    }

    @Override
    public Optional<String> string(String name) {
        return Optional.ofNullable(values.get(prefix + name));
    }

    @Override
    public Optional<Integer> integer(String name) {
        return string(name).map(text -> {
            try {
                return Integer.parseInt(text.trim());
            } catch (NumberFormatException e) {
                throw SqsRefusal.invalidParameter(name, text, "must be an integer.");
            }
        });
    }

    @Override
    public Optional<Boolean> bool(String name) {
        return string(name).map(text -> switch (text) {
            case "true" -> true;
            case "false" -> false;
            default -> throw SqsRefusal.invalidParameter(name, text, "must be true or false.");
        });
    }

    @Override
    public List<String> strings(String jsonName, String queryMember) {
        List<String> strings = new ArrayList<>();
        for (int i = 1; ; i++) {
            String value = values.get(prefix + queryMember + "." + i);
            if (value == null) {
                return strings;
            }
            if (i > MAX_MEMBERS) {
                throw SqsParameters.tooMany(queryMember);
            }
            strings.add(value);
        }
    }

    @Override
    public Map<String, String> map(String jsonName, String queryEntry, String queryKey, String queryValue) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 1; ; i++) {
            String entry = prefix + queryEntry + "." + i + ".";
            String key = values.get(entry + queryKey);
            if (key == null) {
                return map;
            }
            if (i > MAX_MEMBERS) {
                throw SqsParameters.tooMany(queryEntry);
            }
            if (map.containsKey(key)) {
                throw SqsParameters.duplicateKey(queryEntry, key);
            }
            map.put(key, values.getOrDefault(entry + queryValue, ""));
        }
    }

    @Override
    public List<SqsParameters> structures(String jsonName, String queryMember) {
        List<SqsParameters> structures = new ArrayList<>();
        for (int i = 1; ; i++) {
            String member = prefix + queryMember + "." + i + ".";
            if (!hasAny(member)) {
                return structures;
            }
            if (i > MAX_MEMBERS) {
                throw SqsParameters.tooMany(queryMember);
            }
            structures.add(new QueryParameters(values, member));
        }
    }

    @Override
    public Map<String, SqsParameters> structureMap(
            String jsonName, String queryEntry, String queryKey, String queryValue) {
        Map<String, SqsParameters> map = new LinkedHashMap<>();
        for (int i = 1; ; i++) {
            String entry = prefix + queryEntry + "." + i + ".";
            String key = values.get(entry + queryKey);
            if (key == null) {
                return map;
            }
            if (i > MAX_MEMBERS) {
                throw SqsParameters.tooMany(queryEntry);
            }
            if (map.containsKey(key)) {
                throw SqsParameters.duplicateKey(queryEntry, key);
            }
            map.put(key, new QueryParameters(values, entry + queryValue + "."));
        }
    }

    private boolean hasAny(String start) {
        for (String name : values.keySet()) {
            if (name.startsWith(start)) {
                return true;
            }
        }
        return false;
    }
}
