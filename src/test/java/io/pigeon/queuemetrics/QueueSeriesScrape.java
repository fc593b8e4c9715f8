package io.pigeon.queuemetrics;

import static io.restassured.RestAssured.given;

import io.restassured.specification.RequestSpecification;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/** A scrape of /q/metrics/queues as Prometheus reads it: each sample line's name and labels, to its value. */
record QueueSeriesScrape(String text, Map<String, Double> samples) {

    static QueueSeriesScrape of(String query) {
        return of(query, request -> request);
    }

    static QueueSeriesScrape of(String query, UnaryOperator<RequestSpecification> as) {
        String text = as.apply(given())
                .get("/q/metrics/queues" + query)
                .then()
                .statusCode(200)
                .contentType("text/plain; version=0.0.4; charset=utf-8")
                .extract()
                .asString();
        return parse(text);
    }

    static QueueSeriesScrape parse(String text) {
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return new QueueSeriesScrape(text, samples);
    }

    /** The value of {@code name} for the queue, with one more label when {@code extra} is given ({@code state="ready"}). */
    Double queue(String name, String project, String queue, String extra) {
        return samples.get(name + "{project=\"" + project + "\",queue=\"" + queue + "\""
                + (extra == null ? "" : "," + extra) + "}");
    }

    Double queue(String name, String project, String queue) {
        return queue(name, project, queue, null);
    }

    Double messages(String project, String queue, String state) {
        return queue("pigeon_queue_messages", project, queue, "state=\"" + state + "\"");
    }

    /** Ready plus claimed messages of the queue; null while it has no sample. */
    Double backlog(String project, String queue) {
        Double ready = messages(project, queue, "ready");
        Double claimed = messages(project, queue, "claimed");
        return ready == null || claimed == null ? null : ready + claimed;
    }

    /** How many queues (not topics) the answer holds: one posted total each. */
    long queues() {
        return samples.keySet().stream()
                .filter(key -> key.startsWith("pigeon_queue_messages_posted_total{") && key.contains("\",queue=\""))
                .count();
    }
}
