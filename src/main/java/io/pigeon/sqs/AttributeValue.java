package io.pigeon.sqs;

import java.util.Arrays;
import java.util.Objects;

/**
 * One message attribute's value as SQS carries it: its data type ({@code String}, {@code Number}, {@code Binary},
 * each optionally with a custom label: {@code Number.float}) and either a string value (String and Number types) or
 * bytes (Binary). Checked by {@link MessageAttributes}, which holds the rules.
 */
public record AttributeValue(String dataType, String stringValue, byte[] binaryValue) {

    public static AttributeValue string(String dataType, String value) {
        return new AttributeValue(dataType, value, null);
    }

    public static AttributeValue binary(String dataType, byte[] value) {
        return new AttributeValue(dataType, null, value);
    }

    /** The type before any custom label: {@code String}, {@code Number} or {@code Binary} (or what was sent). */
    public String baseType() {
        int dot = dataType.indexOf('.');
        return dot < 0 ? dataType : dataType.substring(0, dot);
    }

    public boolean isBinary() {
        return binaryValue != null;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AttributeValue that
                && dataType.equals(that.dataType)
                && Objects.equals(stringValue, that.stringValue)
                && Arrays.equals(binaryValue, that.binaryValue);
    }

    @Override
    public int hashCode() {
        return 31 * dataType.hashCode() + Objects.hashCode(stringValue) + Arrays.hashCode(binaryValue);
    }

    @Override
    public String toString() {
        return dataType + (isBinary() ? "(" + binaryValue.length + " bytes)" : "(" + stringValue + ")");
    }
}
