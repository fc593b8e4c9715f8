package io.pigeon.api.sqs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * An action's output, whichever protocol writes it: fields named twice, as AWS's model names them in JSON and in XML
 * (lists and maps are flattened in SQS's XML: each member repeats the list's XML name). {@link SqsWire} writes it as
 * a JSON object or as the query protocol's {@code <Result>} element. A field whose value is null is left out, as AWS
 * leaves out what is not set.
 */
public final class SqsAnswer {

    /** One field: a String, a Number, a Boolean, a {@link Strings}, an {@link Entries}, a {@link Structures} or an answer. */
    record Field(String json, String xml, Object value) {}

    /** A list of strings: a JSON array, or one XML element per member. */
    record Strings(Collection<String> values) {}

    /**
     * A map: a JSON object, or one XML element {@code entry} per member holding {@code key} and {@code value}; a value
     * is a String or an answer (a structure).
     */
    record Entries(String key, String value, Map<String, ?> values) {}

    /** A list of structures: a JSON array of objects, or one XML element per member. */
    record Structures(List<SqsAnswer> values) {}

    private final boolean result;
    private final List<Field> fields = new ArrayList<>();

    private SqsAnswer(boolean result) {
        this.result = result;
    }

    /** The answer of an action whose output has members (the query protocol writes its {@code <Result>}). */
    public static SqsAnswer result() {
        return new SqsAnswer(true);
    }

    /** The answer of an action with no output: {@code {}}, or a response holding only its request id. */
    public static SqsAnswer none() {
        return new SqsAnswer(false);
    }

    /** A structure inside an answer (a message, a batch entry's outcome). */
    public static SqsAnswer structure() {
        return new SqsAnswer(true);
    }

    public SqsAnswer string(String json, String xml, String value) {
        return add(json, xml, value);
    }

    public SqsAnswer string(String name, String value) {
        return add(name, name, value);
    }

    public SqsAnswer number(String name, Number value) {
        return add(name, name, value);
    }

    public SqsAnswer bool(String name, Boolean value) {
        return add(name, name, value);
    }

    /** A flattened list of strings: JSON {@code json}, XML one {@code xmlMember} element per value. */
    public SqsAnswer strings(String json, String xmlMember, Collection<String> values) {
        return add(json, xmlMember, values == null ? null : new Strings(values));
    }

    /** A flattened map: JSON {@code json}, XML one {@code xmlEntry} per member with {@code key} and {@code value}. */
    public SqsAnswer entries(String json, String xmlEntry, String key, String value, Map<String, ?> values) {
        return add(json, xmlEntry, values == null ? null : new Entries(key, value, values));
    }

    /** A flattened list of structures: JSON {@code json}, XML one {@code xmlMember} element per structure. */
    public SqsAnswer structures(String json, String xmlMember, List<SqsAnswer> values) {
        return add(json, xmlMember, values == null ? null : new Structures(values));
    }

    /** A nested structure. */
    public SqsAnswer structure(String json, String xml, SqsAnswer value) {
        return add(json, xml, value);
    }

    boolean hasResult() {
        return result;
    }

    List<Field> fields() {
        return fields;
    }

    private SqsAnswer add(String json, String xml, Object value) {
        if (value != null) {
            fields.add(new Field(json, xml, value));
        }
        return this;
    }
}
