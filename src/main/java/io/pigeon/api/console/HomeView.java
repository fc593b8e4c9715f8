package io.pigeon.api.console;

import io.pigeon.health.StorageHealth;
import io.pigeon.pool.Flavor;
import io.pigeon.pool.FlavorService;
import io.pigeon.pool.StoragePool;
import io.pigeon.queue.QueueService;
import io.quarkus.qute.TemplateData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The console's home pages as they are shown: the chooser of projects, and the operator's view of the databases,
 * pools and flavors, made from what the pool, flavor, health and queue services answer. A plain factory: values in,
 * text out.
 */
public final class HomeView {

    private HomeView() {}

    @TemplateData
    public record Chooser(ConsoleViews.Frame frame, List<ProjectLink> projects, boolean anyProject, String error) {}

    /** A project the chooser lists, with its page's URL (the id percent-encoded: it may hold {@code +}, {@code &}). */
    @TemplateData
    public record ProjectLink(String id, String href) {}

    @TemplateData
    public record ShownPool(String name, String uri, long weight, String flavor, boolean reachable, String queues) {}

    @TemplateData
    public record ShownFlavor(String name, String pools, String capabilities) {}

    /** The operator's view: the configured database and each registered pool, with health and queues; the flavors. */
    @TemplateData
    public record Operator(
            ConsoleViews.Frame frame,
            boolean homeReachable,
            String homeQueues,
            List<ShownPool> pools,
            List<ShownFlavor> flavors,
            int shown) {}

    /** The chooser: the projects this caller may pick, and whether any other id may be typed. */
    static Chooser chooser(ConsoleViews.Frame frame, List<String> projects, boolean anyProject) {
        return new Chooser(
                frame,
                projects.stream()
                        .map(one -> new ProjectLink(one, ConsolePages.projectHref(one)))
                        .toList(),
                anyProject,
                null);
    }

    /**
     * The operator's view of the {@code registered} pools (each with its probe from {@code report} and its count of
     * queues from {@code held}), the configured database, and the flavors; at most {@code shown} of each were read.
     */
    static Operator operator(
            ConsoleViews.Frame frame,
            List<StoragePool> registered,
            List<Flavor> classes,
            StorageHealth.Report report,
            List<QueueService.Held> held,
            int shown) {
        Map<String, Long> counts = new HashMap<>();
        String homeQueues = "–";
        for (QueueService.Held one : held) {
            if (one.pool() == null) {
                homeQueues = String.format("%,d", one.queues());
            } else {
                counts.put(one.pool(), one.queues());
            }
        }
        Map<String, StorageHealth.Report> byPool = report.pools() == null ? Map.of() : report.pools();
        List<ShownPool> shownPools = new ArrayList<>();
        for (StoragePool pool : registered) {
            StorageHealth.Report probed = byPool.get(pool.name());
            Long count = counts.get(pool.name());
            shownPools.add(new ShownPool(
                    pool.name(),
                    pool.uri().redacted(),
                    pool.weight(),
                    pool.flavor() == null ? "–" : pool.flavor(),
                    probed != null && probed.storage_reachable(),
                    count == null ? "–" : String.format("%,d", count)));
        }
        List<ShownFlavor> shownFlavors = classes.stream()
                .map(flavor -> new ShownFlavor(
                        flavor.name(),
                        flavor.pools().isEmpty() ? "–" : String.join(", ", flavor.pools()),
                        String.join(", ", FlavorService.capabilities(flavor))))
                .toList();
        return new Operator(frame, report.storage_reachable(), homeQueues, shownPools, shownFlavors, shown);
    }
}
