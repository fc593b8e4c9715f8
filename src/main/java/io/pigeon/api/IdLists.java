package io.pigeon.api;

import java.util.Arrays;
import java.util.List;

/** List parameters such as {@code ?ids=a,b,c}: comma-separated, blanks dropped. */
public final class IdLists {

    private IdLists() {
    }

    public static List<String> split(String ids) {
        return Arrays.stream(ids.split(",")).map(String::trim).filter(id -> !id.isEmpty()).toList();
    }
}
