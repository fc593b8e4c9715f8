package io.pigeon.sqs;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A message's attributes as SQS defines them, checked once when a message is sent (AWS's rules, from the SQS API
 * reference's {@code MessageAttributeValue} and {@code SendMessage}): at most {@value #MAX_ATTRIBUTES}; a name of 1 to
 * {@value #MAX_NAME_LENGTH} characters of letters, digits, {@code _}, {@code -} and {@code .}, not starting with
 * {@code AWS.} or {@code Amazon.} (in any case), not starting or ending with {@code .}, without {@code ..}, unique
 * (names are case-sensitive); a data type {@code String}, {@code Number} or {@code Binary}, optionally followed by
 * {@code .} and a custom label, of at most {@value #MAX_NAME_LENGTH} characters; a non-empty value of the type's
 * kind, a string's characters those a message body may hold, a number of at most 38 significant digits between
 * 10^-128 and 10^126. Kept sorted by name (the order the digest reads them in). Also used for the system attributes
 * ({@link #systemAttributes}), whose only name is {@code AWSTraceHeader}.
 */
public final class MessageAttributes {

    public static final int MAX_ATTRIBUTES = 10;
    public static final int MAX_NAME_LENGTH = 256;
    /** The longest {@code X-Amzn-Trace-Id} header stored (X-Ray's own header is well under 256 characters). */
    public static final int MAX_REQUEST_TRACE_HEADER = 1024;

    private static final int MAX_NUMBER_DIGITS = 38;
    private static final BigDecimal SMALLEST_NUMBER = new BigDecimal("1E-128");
    private static final BigDecimal LARGEST_NUMBER = new BigDecimal("1E126");

    /** The one system attribute SendMessage accepts. */
    public static final String TRACE_HEADER = "AWSTraceHeader";

    public static final MessageAttributes NONE = new MessageAttributes(Collections.emptySortedMap());

    private final Map<String, AttributeValue> byName;

    private MessageAttributes(Map<String, AttributeValue> byName) {
        this.byName = byName;
    }

    /** The attributes as sent, checked against every rule; the first broken rule is refused. */
    public static MessageAttributes of(Map<String, AttributeValue> sent) {
        if (sent == null || sent.isEmpty()) {
            return NONE;
        }
        if (sent.size() > MAX_ATTRIBUTES) {
            throw SqsRefusal.invalidValue("Number of message attributes [" + sent.size()
                    + "] exceeds the allowed maximum [" + MAX_ATTRIBUTES + "].");
        }
        TreeMap<String, AttributeValue> sorted = new TreeMap<>();
        sent.forEach((name, value) -> {
            checkName(name);
            checkValue(name, value);
            sorted.put(name, value);
        });
        return new MessageAttributes(Collections.unmodifiableSortedMap(sorted));
    }

    /**
     * The system attributes of a sent message: only {@value #TRACE_HEADER}, of type String (SQS's rule for
     * {@code MessageSystemAttributes}).
     */
    public static MessageAttributes systemAttributes(Map<String, AttributeValue> sent) {
        if (sent == null || sent.isEmpty()) {
            return NONE;
        }
        for (Map.Entry<String, AttributeValue> entry : sent.entrySet()) {
            if (!TRACE_HEADER.equals(entry.getKey())) {
                throw SqsRefusal.invalidValue("Message system attribute name '" + entry.getKey()
                        + "' is invalid. The only supported message system attribute is " + TRACE_HEADER + ".");
            }
            AttributeValue value = entry.getValue();
            if (value == null || !"String".equals(value.dataType())) {
                throw SqsRefusal.invalidValue(
                        "The message system attribute " + TRACE_HEADER + " must have the DataType String.");
            }
            checkValue(TRACE_HEADER, value);
        }
        return new MessageAttributes(Collections.unmodifiableSortedMap(new TreeMap<>(sent)));
    }

    /**
     * The system attributes to store for a message sent with {@code sent} in a request whose {@code X-Amzn-Trace-Id}
     * header is {@code header} (null: none): the header as {@value #TRACE_HEADER} when the message sends none of its
     * own (AWS: the attribute overrides the header) and the header is a value SQS would take, at most
     * {@value #MAX_REQUEST_TRACE_HEADER} characters; else {@code sent}.
     */
    public static MessageAttributes storedWithRequestHeader(MessageAttributes sent, String header) {
        if (header == null
                || header.length() > MAX_REQUEST_TRACE_HEADER
                || sent.byName().containsKey(TRACE_HEADER)) {
            return sent;
        }
        AttributeValue value = new AttributeValue("String", header, null);
        try {
            checkValue(TRACE_HEADER, value);
        } catch (SqsRefusal notAValue) {
            // A header is advice, as W3C's are: one SQS would not store is left out, never refused.
            return sent;
        }
        TreeMap<String, AttributeValue> stored = new TreeMap<>(sent.byName());
        stored.put(TRACE_HEADER, value);
        return new MessageAttributes(Collections.unmodifiableSortedMap(stored));
    }

    /** Attributes read back from storage, checked when they were sent. */
    static MessageAttributes stored(Map<String, AttributeValue> stored) {
        return stored.isEmpty()
                ? NONE
                : new MessageAttributes(Collections.unmodifiableSortedMap(new TreeMap<>(stored)));
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw SqsRefusal.invalidValue("The message attribute name must not be empty.");
        }
        if (name.length() > MAX_NAME_LENGTH) {
            throw SqsRefusal.invalidValue("Message attribute name '" + shortened(name)
                    + "' is too long: the maximum is " + MAX_NAME_LENGTH + " characters.");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z'
                    || c >= 'A' && c <= 'Z'
                    || c >= '0' && c <= '9'
                    || c == '_'
                    || c == '-'
                    || c == '.')) {
                throw SqsRefusal.invalidValue("The message attribute name '" + shortened(name)
                        + "' is invalid. Attribute name can contain A-Z, a-z, 0-9, underscore (_), hyphen (-), and"
                        + " period (.) characters.");
            }
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.startsWith("aws.") || lower.startsWith("amazon.")) {
            throw SqsRefusal.invalidValue("Message attribute name '" + shortened(name)
                    + "' is reserved: names starting with 'AWS.' or 'Amazon.' are reserved for use by SQS.");
        }
        if (name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
            throw SqsRefusal.invalidValue("Message attribute name '" + shortened(name)
                    + "' is invalid: it may not start or end with '.', nor hold '..'.");
        }
    }

    private static void checkValue(String name, AttributeValue value) {
        if (value == null || value.dataType() == null || value.dataType().isEmpty()) {
            throw SqsRefusal.invalidValue("The message attribute '" + name + "' must contain a non-empty DataType.");
        }
        String dataType = value.dataType();
        if (dataType.length() > MAX_NAME_LENGTH) {
            throw SqsRefusal.invalidValue("The message attribute '" + name + "' has a DataType longer than "
                    + MAX_NAME_LENGTH + " characters.");
        }
        String base = value.baseType();
        if (!base.equals("String") && !base.equals("Number") && !base.equals("Binary")) {
            throw SqsRefusal.invalidValue("The message attribute '" + name + "' has an invalid message attribute"
                    + " type, the set of supported type prefixes is Binary, Number, and String.");
        }
        if (dataType.length() > base.length()) {
            checkLabel(name, dataType.substring(base.length() + 1));
        }
        if (base.equals("Binary")) {
            if (value.stringValue() != null || value.binaryValue() == null || value.binaryValue().length == 0) {
                throw SqsRefusal.invalidValue(
                        "The message attribute '" + name + "' must contain a non-empty BinaryValue (and no"
                                + " StringValue) for its DataType " + shortened(dataType) + ".");
            }
            return;
        }
        if (value.binaryValue() != null
                || value.stringValue() == null
                || value.stringValue().isEmpty()) {
            throw SqsRefusal.invalidValue("The message attribute '" + name + "' must contain a non-empty StringValue"
                    + " (and no BinaryValue) for its DataType " + shortened(dataType) + ".");
        }
        if (!SqsBodies.allowedCharacters(value.stringValue())) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.INVALID_PARAMETER_VALUE,
                    "The message attribute '" + name + "' has a StringValue with characters SQS does not allow"
                            + " (allowed: #x9, #xA, #xD, #x20 to #xD7FF, #xE000 to #xFFFD, #x10000 to #x10FFFF).");
        }
        if (base.equals("Number")) {
            checkNumber(name, value.stringValue());
        }
    }

    private static void checkLabel(String name, String label) {
        if (label.isEmpty()) {
            throw SqsRefusal.invalidValue("The message attribute '" + name + "' has an empty custom DataType label.");
        }
        for (int i = 0; i < label.length(); i++) {
            char c = label.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                throw SqsRefusal.invalidValue("The message attribute '" + name
                        + "' has a custom DataType label with characters other than printable ASCII.");
            }
        }
    }

    private static void checkNumber(String name, String text) {
        BigDecimal number;
        try {
            number = new BigDecimal(text.trim());
        } catch (NumberFormatException e) {
            throw SqsRefusal.invalidValue(
                    "The message attribute '" + name + "' of type Number has a value that is not a number.");
        }
        BigDecimal magnitude = number.abs();
        if (magnitude.signum() != 0
                && (magnitude.compareTo(SMALLEST_NUMBER) < 0 || magnitude.compareTo(LARGEST_NUMBER) > 0)) {
            throw SqsRefusal.invalidValue("The message attribute '" + name
                    + "' of type Number is out of range: a number's magnitude is between 10^-128 and 10^126.");
        }
        if (magnitude.signum() != 0 && magnitude.stripTrailingZeros().precision() > MAX_NUMBER_DIGITS) {
            throw SqsRefusal.invalidValue("The message attribute '" + name + "' of type Number has more than "
                    + MAX_NUMBER_DIGITS + " digits of precision.");
        }
    }

    private static String shortened(String text) {
        return text.length() <= 64 ? text : text.substring(0, 64) + "...";
    }

    public boolean isEmpty() {
        return byName.isEmpty();
    }

    /** By name, in the order of names (as the digest reads them). */
    public Map<String, AttributeValue> byName() {
        return byName;
    }

    /**
     * What the attributes count toward a message's size, as SQS counts it: each name, data type and value, in bytes
     * (UTF-8 for text).
     */
    public long size() {
        long size = 0;
        for (Map.Entry<String, AttributeValue> entry : byName.entrySet()) {
            AttributeValue value = entry.getValue();
            size += utf8Length(entry.getKey()) + utf8Length(value.dataType());
            size += value.isBinary() ? value.binaryValue().length : utf8Length(value.stringValue());
        }
        return size;
    }

    /** Only the attributes named in {@code names} ({@code All} or {@code .*} for every one, {@code prefix.*}). */
    public MessageAttributes selected(Collection<String> names) {
        if (byName.isEmpty() || names == null || names.isEmpty()) {
            return NONE;
        }
        TreeMap<String, AttributeValue> chosen = new TreeMap<>();
        byName.forEach((name, value) -> {
            if (AttributeSelection.matches(names, name)) {
                chosen.put(name, value);
            }
        });
        return chosen.isEmpty() ? NONE : new MessageAttributes(Collections.unmodifiableSortedMap(chosen));
    }

    static long utf8Length(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof MessageAttributes that && byName.equals(that.byName);
    }

    @Override
    public int hashCode() {
        return byName.hashCode();
    }

    @Override
    public String toString() {
        return byName.toString();
    }
}
