package io.pigeon.api.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.vertx.http.runtime.filters.Filters;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Counts the HTTP answers by status class ({@code pigeon_http_responses_total{class="2xx"}}, 1xx to 5xx), in place of
 * Micrometer's per-request timer {@code http_server_requests_seconds}, which is off
 * (docs/decisions/0016-less-java-per-request.md): that timer started a sample, normalized the path and built its tags
 * on every request, about 5 % of the event loop's time, while what operators read from it was the request rate and the
 * error rate. Five series, whatever paths clients send, so no project or queue name ever shows on /q/metrics; per
 * queue traffic is on /q/metrics/queues.
 */
@ApplicationScoped
public class ResponseClasses {

    /** Ahead of every route, so that every answer is counted, the ones refused before routing included. */
    private static final int PRIORITY = 3000;

    private final Counter[] classes = new Counter[5];

    ResponseClasses(MeterRegistry registry) {
        for (int i = 0; i < classes.length; i++) {
            classes[i] = Counter.builder("pigeon.http.responses")
                    .description("HTTP answers by status class")
                    .tag("class", (i + 1) + "xx")
                    .register(registry);
        }
    }

    void register(@Observes Filters filters) {
        filters.register(
                context -> {
                    context.addHeadersEndHandler(
                            ignored -> count(context.response().getStatusCode()));
                    context.next();
                },
                PRIORITY);
    }

    private void count(int status) {
        int index = status / 100 - 1;
        if (index >= 0 && index < classes.length) {
            classes[index].increment();
        }
    }
}
