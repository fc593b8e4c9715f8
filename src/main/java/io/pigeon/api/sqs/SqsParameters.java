package io.pigeon.api.sqs;

import io.pigeon.sqs.SqsRefusal;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An action's input, whichever protocol carried it: one model for both, so that an action reads its parameters once,
 * by the names of AWS's model. JSON 1.0 names a member by its own name ({@code Attributes}); the query protocol by its
 * XML name with 1-based indexes ({@code Attribute.1.Name}, {@code AttributeName.2}), which the action names too. A
 * value of the wrong shape is refused with {@code InvalidParameterValue}; a list or map is bounded by
 * {@link #MAX_MEMBERS}.
 */
public interface SqsParameters {

    /** The most members a list or map of one parameter may hold (the largest SQS allows is 50 tags). */
    int MAX_MEMBERS = 100;

    /** A string member; empty when absent. */
    Optional<String> string(String name);

    /** A string member that must be there ({@code MissingParameter} otherwise). */
    default String required(String name) {
        return string(name).orElseThrow(() -> SqsRefusal.missingParameter(name));
    }

    /** An integer member; empty when absent. */
    Optional<Integer> integer(String name);

    /** A boolean member; empty when absent. */
    Optional<Boolean> bool(String name);

    /** A list of strings: {@code jsonName} in JSON, {@code member.1}, {@code member.2}... in the query protocol. */
    List<String> strings(String jsonName, String queryMember);

    /**
     * A map of strings: {@code jsonName} in JSON, {@code entry.N.<key>} and {@code entry.N.<value>} in the query
     * protocol. A key given twice is refused.
     */
    Map<String, String> map(String jsonName, String queryEntry, String queryKey, String queryValue);

    /** A list of structures (batch entries): {@code jsonName} in JSON, {@code member.N.<field>} in the query protocol. */
    List<SqsParameters> structures(String jsonName, String queryMember);

    /** A map of structures (message attributes): as {@link #map}, each value a structure. */
    Map<String, SqsParameters> structureMap(String jsonName, String queryEntry, String queryKey, String queryValue);

    static SqsRefusal tooMany(String name) {
        return SqsRefusal.invalidParameter(name, "...", "at most " + MAX_MEMBERS + " members may be given.");
    }

    static SqsRefusal duplicateKey(String name, String key) {
        return SqsRefusal.invalidParameter(name, key, "a key may be given only once.");
    }
}
