package io.pigeon.api.console;

import io.pigeon.dispatch.DeadGroup;
import io.pigeon.dispatch.DuePendingGroup;
import io.pigeon.dispatch.ListedGroup;
import io.quarkus.qute.TemplateData;
import java.util.List;

/**
 * A project's /v3 dispatch as the console shows it: its pending groups, soonest due first, and its dead ones, each with
 * its requeue and drop; and the confirmation of a dead group's requeue or drop. A plain factory: values in, text out.
 */
public final class DispatchView {

    private DispatchView() {}

    @TemplateData
    public record ShownGroup(
            long id,
            String mergeKey,
            String method,
            String target,
            int attempts,
            String lastError,
            long items,
            String when,
            String requeueHref,
            String dropHref) {

        /** A group as listed; {@code deadHref}, the dead group's own path, gives its requeue and drop (null: none). */
        static ShownGroup of(ListedGroup group, long items, String when, String deadHref) {
            return new ShownGroup(
                    group.id(),
                    group.mergeKey(),
                    group.method(),
                    group.target(),
                    group.attempts(),
                    group.lastError(),
                    items,
                    when,
                    deadHref == null ? null : deadHref + "/requeue",
                    deadHref == null ? null : deadHref + "/drop");
        }
    }

    @TemplateData
    public record Dispatch(
            ConsoleViews.Frame frame, String notice, List<ShownGroup> pending, List<ShownGroup> dead, int shown) {}

    /** The dispatch page: the {@code pending} and {@code dead} groups, at most {@code shown} of each. */
    static Dispatch of(
            ConsoleViews.Frame frame, String notice, List<DuePendingGroup> pending, List<DeadGroup> dead, int shown) {
        String base = frame.projectHref() + "/dispatch/dead/";
        return new Dispatch(
                frame,
                notice,
                pending.stream()
                        .map(group -> ShownGroup.of(
                                group.group(),
                                group.items(),
                                group.inFlight()
                                        ? "being called"
                                        : group.dueInSeconds() <= 0
                                                ? "due now"
                                                : "in " + ConsoleViews.duration(group.dueInSeconds()),
                                null))
                        .toList(),
                dead.stream()
                        .map(group -> ShownGroup.of(group.group(), group.items(), "dead", base + group.id()))
                        .toList(),
                shown);
    }

    /** The confirmation of a dead group's requeue ({@code requeue}) or drop ({@code action} names which). */
    static ConsoleViews.Confirm confirmation(ConsolePages.Call call, long group, String action, boolean requeue) {
        String dispatchHref = call.frame().projectHref() + "/dispatch";
        return new ConsoleViews.Confirm(
                call.frame(),
                "dead group " + group,
                dispatchHref,
                action,
                dispatchHref + "/dead/" + group + "/" + action,
                requeue
                        ? "Requeue dead group " + group + ": call it again at once, with fresh attempts."
                        : "Drop dead group " + group + " and its items.",
                requeue ? "Requeue the group" : "Drop the group",
                call.token(),
                null,
                false,
                false,
                "",
                "",
                "",
                "");
    }
}
