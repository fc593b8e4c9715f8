package io.pigeon.api.read;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.pool.PoolSpec;
import io.pigeon.pool.PoolUri;
import io.pigeon.rules.Rejection;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The pool and flavor requests of Zaqar's admin API, read into {@link PoolSpec} and pool lists: each field's JSON
 * type is checked here, naming the field; the bounds are the services'.
 */
public final class PoolReader {

    private static final Set<String> POOL_FIELDS = Set.of("uri", "weight", "flavor", "options");
    private static final Set<String> FLAVOR_FIELDS = Set.of("pool_list", "capabilities");

    private PoolReader() {}

    /** A registration (PUT): only Zaqar's four fields. */
    public static PoolSpec pool(byte[] body) {
        return read(object(body), true);
    }

    /** A patch: the same fields, each optional. */
    public static PoolSpec poolPatch(byte[] body) {
        return read(object(body), false);
    }

    /** A flavor's {@code pool_list} (null when absent); {@code capabilities} is accepted and ignored, as in Zaqar. */
    public static List<String> poolList(byte[] body) {
        ObjectNode document = object(body);
        unknownFields(document, FLAVOR_FIELDS, "a flavor has pool_list (and capabilities, which are ignored)");
        JsonNode capabilities = document.get("capabilities");
        if (capabilities != null && !capabilities.isObject()) {
            throw Rejection.invalidBody("capabilities must be an object.");
        }
        JsonNode pools = document.get("pool_list");
        if (pools == null) {
            return null;
        }
        if (!pools.isArray()) {
            throw Rejection.invalidBody("pool_list must be an array of pool names.");
        }
        List<String> names = new ArrayList<>();
        for (JsonNode pool : pools) {
            if (!pool.isTextual()) {
                throw Rejection.invalidBody("pool_list must be an array of pool names.");
            }
            names.add(pool.asText());
        }
        return names;
    }

    private static ObjectNode object(byte[] body) {
        JsonNode document = JsonBodyReader.parse(body);
        if (!document.isObject()) {
            throw Rejection.invalidBody("The document must be a JSON object.");
        }
        return (ObjectNode) document;
    }

    private static void unknownFields(ObjectNode document, Set<String> known, String expectation) {
        for (Iterator<String> names = document.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw Rejection.invalidBody("Unknown field `" + name + "`: " + expectation + ".");
            }
        }
    }

    private static PoolSpec read(ObjectNode document, boolean registration) {
        unknownFields(document, POOL_FIELDS, "a pool has uri, weight, flavor and options");
        JsonNode uri = document.get("uri");
        JsonNode weight = document.get("weight");
        JsonNode flavor = document.get("flavor");
        JsonNode options = document.get("options");
        if (registration && (uri == null || weight == null)) {
            throw Rejection.invalidBody("A pool needs `uri` and `weight`.");
        }
        if (uri != null && !uri.isTextual()) {
            throw Rejection.invalidBody("uri must be a string: postgresql://user:password@host:port/database (at most "
                    + PoolUri.MAX_LENGTH + " characters).");
        }
        if (weight != null && (!weight.isIntegralNumber() || !weight.canConvertToLong())) {
            throw Rejection.invalidBody("weight must be an integer from 0 to 4294967295.");
        }
        if (flavor != null && !flavor.isTextual()) {
            throw Rejection.invalidBody("flavor must be a string (empty: no flavor).");
        }
        if (options != null && !options.isObject()) {
            throw Rejection.invalidBody("options must be an object.");
        }
        return new PoolSpec(
                uri == null ? null : uri.asText(),
                weight == null ? null : weight.longValue(),
                flavor == null ? null : flavor.asText(),
                options == null ? null : (ObjectNode) options);
    }
}
