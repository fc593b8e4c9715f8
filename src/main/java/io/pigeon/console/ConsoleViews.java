package io.pigeon.console;

import com.fasterxml.jackson.databind.JsonNode;
import io.pigeon.dispatch.ListedGroup;
import io.quarkus.qute.TemplateData;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * What the console's templates show, as text already formatted: the templates hold no logic but loops and
 * conditions, and Qute escapes every value they write (no raw output anywhere).
 */
public final class ConsoleViews {

    /** Longest part of a message body a page shows; the rest is cut and its size said. */
    static final int SHOWN_BODY_CHARS = 2000;

    private ConsoleViews() {}

    /**
     * The parts every page shares: the project (null on the chooser), its path, the banner's text (authentication off;
     * else null) and the signed-in user's name (OIDC mode; else null).
     */
    @TemplateData
    public record Frame(String project, String projectHref, String banner, String user) {}

    @TemplateData
    public record Chooser(Frame frame, List<ProjectLink> projects, boolean anyProject, String error) {}

    /** A project the chooser lists, with its page's URL (the id percent-encoded: it may hold {@code +}, {@code &}). */
    @TemplateData
    public record ProjectLink(String id, String href) {}

    @TemplateData
    public record QueueRow(
            String name,
            String href,
            String ready,
            String claimed,
            String delayed,
            String oldestReadyAge,
            boolean estimated,
            String deadLetterQueue,
            boolean deadLetter,
            String deadLetterSources,
            String flowPosted,
            String flowConsumed,
            String flowLabel) {}

    @TemplateData
    public record SortLink(String label, String href, boolean current) {}

    @TemplateData
    public record Queues(
            Frame frame,
            List<QueueRow> rows,
            List<SortLink> sorts,
            String filter,
            String sort,
            long page,
            long pages,
            long total,
            String previousHref,
            String nextHref,
            String sampleNote) {}

    @TemplateData
    public record Attribute(String name, String value) {}

    @TemplateData
    public record ShownMessage(String id, String age, String ttl, int claimCount, String body, String cut) {}

    @TemplateData
    public record ShownClaim(String id, int ttl, int grace, String age, String remaining, int messages) {}

    @TemplateData
    public record ShownSubscription(
            String id,
            String subscriber,
            int ttl,
            String age,
            String confirmed,
            String delivery,
            String lastDelivered,
            long failures,
            String lastFailed,
            String lastError,
            String options) {}

    @TemplateData
    public record ShownTask(
            String id, String state, String target, int rate, long moved, long skipped, String reason) {}

    @TemplateData
    public record QueuePage(
            Frame frame,
            String queue,
            String queueHref,
            String notice,
            String ready,
            String claimed,
            String delayed,
            String oldestReadyAge,
            String totals,
            String flowMinutes,
            String flowPosted,
            String flowConsumed,
            String flowSummary,
            List<Attribute> reserved,
            String metadata,
            List<ShownMessage> messages,
            int peekLimit,
            List<ShownClaim> claims,
            List<ShownSubscription> subscriptions,
            List<ShownTask> tasks) {}

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
    public record Dispatch(Frame frame, String notice, List<ShownGroup> pending, List<ShownGroup> dead, int shown) {}

    /** A confirmation step: what is about to happen, the form that does it, and the refusal of a first try. */
    @TemplateData
    public record Confirm(
            Frame frame,
            String queue,
            String queueHref,
            String action,
            String actionHref,
            String question,
            String button,
            String csrf,
            String error,
            boolean post,
            boolean redrive,
            String body,
            String ttl,
            String delay,
            String rate) {}

    /** One reserved attribute's field on the metadata form: its name, what was typed (blank: unset), its bounds. */
    @TemplateData
    public record ReservedField(String name, String id, String value, String bounds) {}

    /** The metadata form: the plain keys as a JSON object, one field per scalar reserved attribute. */
    @TemplateData
    public record MetadataForm(
            Frame frame,
            String queue,
            String queueHref,
            String actionHref,
            String csrf,
            String error,
            String metadata,
            List<ReservedField> fields) {}

    /** The form that creates a queue, blank or as typed with the refusal. */
    @TemplateData
    public record NewQueue(Frame frame, String actionHref, String csrf, String error, String name, String metadata) {}

    @TemplateData
    public record ShownPool(String name, String uri, long weight, String flavor, boolean reachable, String queues) {}

    @TemplateData
    public record ShownFlavor(String name, String pools, String capabilities) {}

    /** The operator's view: the configured database and each registered pool, with health and queues; the flavors. */
    @TemplateData
    public record Operator(
            Frame frame,
            boolean homeReachable,
            String homeQueues,
            List<ShownPool> pools,
            List<ShownFlavor> flavors,
            int shown) {}

    @TemplateData
    public record Failure(Frame frame, int status, String title, String description, String backHref) {}

    /** A path segment as a URL holds it (a project id may hold any printable character). */
    static String segment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Nesting up to which JSON is shown indented; deeper documents are shown as stored (see {@link #readable}). */
    static final int INDENTED_DEPTH = 3;

    /**
     * JSON as a person reads it: indented when it nests at most {@value #INDENTED_DEPTH} levels, else compact. Indenting
     * adds a line and its indentation per value, so a document nested 1,000 deep (the JSON reader's bound) grew from
     * 60 KB stored to a 20 MB page; at this depth what is shown stays within a few times what was stored.
     */
    static String readable(JsonNode json) {
        return depth(json) <= INDENTED_DEPTH ? json.toPrettyString() : json.toString();
    }

    /** How deeply {@code json} nests containers (a scalar: 0), walked without recursion. */
    private static int depth(JsonNode json) {
        int deepest = 0;
        Deque<Map.Entry<JsonNode, Integer>> open = new ArrayDeque<>();
        open.push(Map.entry(json, 0));
        while (!open.isEmpty()) {
            Map.Entry<JsonNode, Integer> next = open.pop();
            if (next.getKey().isContainerNode()) {
                int level = next.getValue() + 1;
                deepest = Math.max(deepest, level);
                if (deepest > INDENTED_DEPTH) {
                    return deepest;
                }
                for (JsonNode child : next.getKey()) {
                    open.push(Map.entry(child, level));
                }
            }
        }
        return deepest;
    }

    static String count(Long value) {
        return value == null ? "–" : String.format("%,d", value);
    }

    /** Seconds as a person reads them: 42 s, 3 min 5 s, 2 h 10 min, 4 d 2 h. */
    static String duration(Double seconds) {
        if (seconds == null) {
            return "–";
        }
        long s = Math.round(seconds);
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
        }
        if (s < 86_400) {
            return s / 3600 + " h" + (s % 3600 / 60 == 0 ? "" : " " + s % 3600 / 60 + " min");
        }
        return s / 86_400 + " d" + (s % 86_400 / 3600 == 0 ? "" : " " + s % 86_400 / 3600 + " h");
    }
}
