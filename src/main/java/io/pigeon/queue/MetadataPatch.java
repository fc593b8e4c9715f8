package io.pigeon.queue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.rules.Rejection;
import java.util.List;
import java.util.Set;

/**
 * A queue-metadata patch: {@code add}, {@code replace} and {@code remove} of top-level keys, applied in order.
 * The whole patch applies or none of it. (The v2 JSON-patch document is read into one at the edge.)
 */
public record MetadataPatch(List<Operation> operations) {

    public enum Op {
        ADD,
        REPLACE,
        REMOVE
    }

    /** One operation on {@code key}; {@code value} is null for a removal. */
    public record Operation(Op op, String key, JsonNode value) {}

    public MetadataPatch {
        operations = List.copyOf(operations);
    }

    /**
     * A copy of {@code metadata} with every operation applied. Keys in {@code alwaysPresent} (the reserved
     * attributes, which always have a value) may be replaced or removed when unset: removing one returns it
     * to its default, as Zaqar does; python-zaqarclient relies on it.
     */
    public ObjectNode applyTo(ObjectNode metadata, Set<String> alwaysPresent) {
        ObjectNode patched = metadata.deepCopy();
        for (Operation operation : operations) {
            String key = operation.key();
            switch (operation.op()) {
                case ADD -> patched.set(key, operation.value());
                case REPLACE -> {
                    if (!patched.has(key) && !alwaysPresent.contains(key)) {
                        throw conflict("Can't replace non-existent object " + key + ".");
                    }
                    patched.set(key, operation.value());
                }
                case REMOVE -> {
                    if (!patched.has(key) && !alwaysPresent.contains(key)) {
                        throw conflict("Can't remove non-existent object " + key + ".");
                    }
                    patched.remove(key);
                }
            }
        }
        return patched;
    }

    private static Rejection conflict(String description) {
        return new Rejection(Rejection.Reason.CONFLICT, description);
    }
}
