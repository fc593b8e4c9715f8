package io.pigeon.api.console;

import com.fasterxml.jackson.databind.JsonNode;
import io.quarkus.qute.TemplateData;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What every console page shares: its frame, the refusal and confirmation pages, the notices a change leaves, and how
 * numbers, durations and JSON are written. Each page area's own views are made by its factory ({@code *View}, plain
 * classes). The templates get text already formatted and hold no logic but loops and conditions, and Qute escapes
 * every value they write (no raw output anywhere).
 */
public final class ConsoleViews {

    /** Longest part of a message body a page shows; the rest is cut and its size said. */
    static final int SHOWN_BODY_CHARS = 2000;

    private static final Map<String, String> NOTICES = Map.of(
            "posted", "The test message was posted.",
            "purged", "The queue's messages were purged.",
            "redrive", "A redrive of this queue's dead letters started: its progress is listed below.",
            "requeued", "The dead group was requeued: it is called again at once.",
            "dropped", "The dead group was dropped with its items.",
            "metadata", "The queue's metadata was replaced.",
            "revoked", "The access key was revoked: requests it signs are refused from now on.");

    private ConsoleViews() {}

    /** The notice a page shows after the change named by its {@code done} parameter (null: none, or unknown). */
    static String notice(String done) {
        return done == null ? null : NOTICES.get(done);
    }

    /**
     * The parts every page shares: the project (null on the chooser), its path, the banner's text (authentication off;
     * else null) and the signed-in user's name (OIDC mode; else null).
     */
    @TemplateData
    public record Frame(String project, String projectHref, String banner, String user) {}

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

    static String ago(Long seconds) {
        return seconds == null ? "never" : duration((double) seconds) + " ago";
    }

    /** Numbers as a data attribute carries them to the chart: comma-separated, nothing else. */
    static String joined(List<? extends Number> values) {
        StringBuilder text = new StringBuilder();
        for (Number value : values) {
            if (!text.isEmpty()) {
                text.append(',');
            }
            text.append(value instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : value.toString());
        }
        return text.toString();
    }

    static double sum(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).sum();
    }
}
