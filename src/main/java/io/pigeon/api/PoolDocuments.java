package io.pigeon.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.pool.FlavorService;
import io.pigeon.pool.FlavorStore;
import io.pigeon.pool.PoolSpec;
import io.pigeon.pool.PoolUri;
import io.pigeon.pool.StoragePool;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The pool and flavor documents of Zaqar's admin API: requests read into {@link PoolSpec} and pool lists (each field's
 * JSON type checked here, naming the field; the bounds are the services'), answers built from the catalogue.
 */
public final class PoolDocuments {

    private static final Set<String> POOL_FIELDS = Set.of("uri", "weight", "flavor", "options");
    private static final Set<String> FLAVOR_FIELDS = Set.of("pool_list", "capabilities");

    private PoolDocuments() {
    }

    /** A pool as answered; {@code options} only when detailed. The uri never shows its password. */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PoolView(String name, @JsonInclude(JsonInclude.Include.ALWAYS) String flavor, String uri, long weight,
            @JsonRawValue String options, String href) {
    }

    @RegisterForReflection
    public record PoolPage(List<PoolView> pools, List<PageLink> links) {
    }

    /** A flavor as answered (Zaqar's fields; the capabilities are those every Pigeon pool has). */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record FlavorView(String name, List<String> pool_list, List<String> capabilities, String href) {
    }

    @RegisterForReflection
    public record FlavorPage(List<FlavorView> flavors, List<PageLink> links) {
    }

    /** A page of pools under {@code root}, with its next link when not empty. */
    public static PoolPage page(String root, List<StoragePool> page, String limitParam, boolean detailed) {
        return new PoolPage(page.stream().map(pool -> view(pool, root + "/" + pool.name(), detailed)).toList(),
                next(root, page.isEmpty() ? null : page.get(page.size() - 1).name(), limitParam, detailed));
    }

    /** A page of flavors under {@code root}, with its next link when not empty. */
    public static FlavorPage flavorPage(String root, List<FlavorStore.Flavor> page, String limitParam, boolean detailed) {
        return new FlavorPage(page.stream().map(flavor -> view(flavor, root + "/" + flavor.name(), detailed)).toList(),
                next(root, page.isEmpty() ? null : page.get(page.size() - 1).name(), limitParam, detailed));
    }

    /** The next link after the page's last name, none after an empty page (so that clients stop paging). */
    private static List<PageLink> next(String root, String lastName, String limitParam, boolean detailed) {
        return lastName == null ? List.of()
                : List.of(NextLinks.after(root, lastName).option("limit", limitParam).flag("detailed", detailed).link());
    }

    public static PoolView view(StoragePool pool, String href, boolean detailed) {
        return new PoolView(pool.name(), pool.flavor(), pool.uri().redacted(), pool.weight(),
                detailed ? pool.optionsJson() : null, href);
    }

    public static FlavorView view(FlavorStore.Flavor flavor, String href, boolean detailed) {
        return new FlavorView(flavor.name(), flavor.pools(), detailed ? FlavorService.capabilities(flavor) : null, href);
    }

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
            throw ApiException.invalidBody("capabilities must be an object.");
        }
        JsonNode pools = document.get("pool_list");
        if (pools == null) {
            return null;
        }
        if (!pools.isArray()) {
            throw ApiException.invalidBody("pool_list must be an array of pool names.");
        }
        List<String> names = new ArrayList<>();
        for (JsonNode pool : pools) {
            if (!pool.isTextual()) {
                throw ApiException.invalidBody("pool_list must be an array of pool names.");
            }
            names.add(pool.asText());
        }
        return names;
    }

    private static ObjectNode object(byte[] body) {
        JsonNode document = JsonBodies.parse(body);
        if (!document.isObject()) {
            throw ApiException.invalidBody("The document must be a JSON object.");
        }
        return (ObjectNode) document;
    }

    private static void unknownFields(ObjectNode document, Set<String> known, String expectation) {
        for (Iterator<String> names = document.fieldNames(); names.hasNext();) {
            String name = names.next();
            if (!known.contains(name)) {
                throw ApiException.invalidBody("Unknown field `" + name + "`: " + expectation + ".");
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
            throw ApiException.invalidBody("A pool needs `uri` and `weight`.");
        }
        if (uri != null && !uri.isTextual()) {
            throw ApiException.invalidBody("uri must be a string: postgresql://user:password@host:port/database (at most "
                    + PoolUri.MAX_LENGTH + " characters).");
        }
        if (weight != null && (!weight.isIntegralNumber() || !weight.canConvertToLong())) {
            throw ApiException.invalidBody("weight must be an integer from 0 to 4294967295.");
        }
        if (flavor != null && !flavor.isTextual()) {
            throw ApiException.invalidBody("flavor must be a string (empty: no flavor).");
        }
        if (options != null && !options.isObject()) {
            throw ApiException.invalidBody("options must be an object.");
        }
        return new PoolSpec(uri == null ? null : uri.asText(), weight == null ? null : weight.longValue(),
                flavor == null ? null : flavor.asText(), options == null ? null : (ObjectNode) options);
    }
}
