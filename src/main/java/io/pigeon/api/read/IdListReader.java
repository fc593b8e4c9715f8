package io.pigeon.api.read;

import java.util.Arrays;
import java.util.List;

/**
 * List parameters such as {@code ids}, in both forms Zaqar accepts: comma-separated ({@code ?ids=a,b}) and
 * repeated ({@code ?ids=a&ids=b}, as python-zaqarclient sends them), or both at once. Blank items are dropped.
 */
public final class IdListReader {

    private IdListReader() {}

    /** The items of every value given; null when the parameter was absent or given only empty. */
    public static List<String> of(List<String> values) {
        if (values == null || values.stream().allMatch(String::isEmpty)) {
            return null;
        }
        return values.stream()
                .flatMap(value -> Arrays.stream(value.split(",")))
                .map(String::trim)
                .filter(id -> !id.isEmpty())
                .toList();
    }
}
