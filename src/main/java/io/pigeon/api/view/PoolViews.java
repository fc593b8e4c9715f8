package io.pigeon.api.view;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.pigeon.pool.Flavor;
import io.pigeon.pool.FlavorService;
import io.pigeon.pool.StoragePool;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/** The pool and flavor answers of Zaqar's admin API, built from the catalogue. */
public final class PoolViews {

    private PoolViews() {}

    /** A pool as answered; {@code options} only when detailed. The uri never shows its password. */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PoolView(
            String name,
            @JsonInclude(JsonInclude.Include.ALWAYS) String flavor,
            String uri,
            long weight,
            @JsonRawValue String options,
            String href) {}

    @RegisterForReflection
    public record PoolPage(List<PoolView> pools, List<PageLink> links) {}

    /** A flavor as answered (Zaqar's fields; the capabilities are those every Pigeon pool has). */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record FlavorView(String name, List<String> pool_list, List<String> capabilities, String href) {}

    @RegisterForReflection
    public record FlavorPage(List<FlavorView> flavors, List<PageLink> links) {}

    /** A page of pools under {@code root}, with its next link when not empty. */
    public static PoolPage page(String root, List<StoragePool> page, String limitParam, boolean detailed) {
        return new PoolPage(
                page.stream()
                        .map(pool -> view(pool, root + "/" + pool.name(), detailed))
                        .toList(),
                next(root, page.isEmpty() ? null : page.get(page.size() - 1).name(), limitParam, detailed));
    }

    /** A page of flavors under {@code root}, with its next link when not empty. */
    public static FlavorPage flavorPage(String root, List<Flavor> page, String limitParam, boolean detailed) {
        return new FlavorPage(
                page.stream()
                        .map(flavor -> view(flavor, root + "/" + flavor.name(), detailed))
                        .toList(),
                next(root, page.isEmpty() ? null : page.get(page.size() - 1).name(), limitParam, detailed));
    }

    /** The next link after the page's last name, none after an empty page (so that clients stop paging). */
    private static List<PageLink> next(String root, String lastName, String limitParam, boolean detailed) {
        return lastName == null
                ? List.of()
                : List.of(NextLinks.after(root, lastName)
                        .option("limit", limitParam)
                        .flag("detailed", detailed)
                        .link());
    }

    public static PoolView view(StoragePool pool, String href, boolean detailed) {
        return new PoolView(
                pool.name(),
                pool.flavor(),
                pool.uri().redacted(),
                pool.weight(),
                detailed ? pool.optionsJson() : null,
                href);
    }

    public static FlavorView view(Flavor flavor, String href, boolean detailed) {
        return new FlavorView(
                flavor.name(), flavor.pools(), detailed ? FlavorService.capabilities(flavor) : null, href);
    }
}
