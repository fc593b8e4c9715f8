package io.pigeon.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many requests Pigeon's statements carried over one run, per request type, from its own histogram
 * (pigeon_statement_requests at /q/metrics) read before and after: the statements per request type that the ratio
 * benchmark reports beside what each run cost.
 */
final class StatementSharing {

    private StatementSharing() {}

    private static final Pattern STATEMENT_REQUESTS =
            Pattern.compile("(?m)^pigeon_statement_requests_(bucket|count|sum)\\{([^}]*)}\\s+([0-9.eE+-]+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

    /**
     * Pigeon's histogram of requests per statement (pigeon_statement_requests at /q/metrics) as "kind le" (or
     * "kind count", "kind sum") to its value; empty when Pigeon has none (coalescing predates it, or no metrics).
     */
    static Map<String, Double> read(HttpClient http, String url) {
        Map<String, Double> values = new LinkedHashMap<>();
        try {
            String metrics = http.send(
                            HttpRequest.newBuilder(URI.create(url + "/q/metrics"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            Matcher line = STATEMENT_REQUESTS.matcher(metrics);
            while (line.find()) {
                Map<String, String> labels = new LinkedHashMap<>();
                Matcher label = LABEL.matcher(line.group(2));
                while (label.find()) {
                    labels.put(label.group(1), label.group(2));
                }
                String which = line.group(1).equals("bucket") ? labels.get("le") : line.group(1);
                values.put(labels.get("kind") + " " + which, Double.parseDouble(line.group(3)));
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            return Map.of();
        }
        return values;
    }

    /**
     * Per kind, over one run: statements, requests per statement, and the share of statements by how many requests
     * they carried (1, 2, 3-4, 5-8, 9-16, 17-32, more).
     */
    static String describe(Map<String, Double> before, Map<String, Double> after) {
        List<String> kinds = new ArrayList<>();
        for (String kind : List.of("post", "claim", "delete")) {
            double count = after.getOrDefault(kind + " count", 0.0) - before.getOrDefault(kind + " count", 0.0);
            if (count <= 0) {
                continue;
            }
            double sum = after.getOrDefault(kind + " sum", 0.0) - before.getOrDefault(kind + " sum", 0.0);
            StringBuilder shares = new StringBuilder();
            double below = 0;
            String[] edges = {"1.0", "2.0", "4.0", "8.0", "16.0", "32.0", "+Inf"};
            String[] names = {"1", "2", "3-4", "5-8", "9-16", "17-32", ">32"};
            for (int i = 0; i < edges.length; i++) {
                double upTo = after.getOrDefault(kind + " " + edges[i], 0.0)
                        - before.getOrDefault(kind + " " + edges[i], 0.0);
                double share = (upTo - below) / count;
                below = upTo;
                if (share >= 0.005) {
                    shares.append(String.format(Locale.ROOT, " %s:%.0f%%", names[i], share * 100));
                }
            }
            kinds.add(String.format(
                    Locale.ROOT,
                    "%s %.0f statements, %.2f each (%s)",
                    kind,
                    count,
                    sum / count,
                    shares.toString().trim()));
        }
        return String.join("; ", kinds);
    }
}
