package io.pigeon.storage;

import io.smallrye.mutiny.Uni;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * What a {@link Coalescer} tells about the statements it runs: how many requests each carried (a metric), and, where
 * tracing is on, a client span around each statement linked to the requests it carried. The storage layer knows
 * neither metrics nor traces; {@code io.pigeon.observability.StatementObservers} makes the observers that do.
 */
public interface StatementObserver {

    /**
     * Who is asking, taken when a request is submitted, on its caller's thread (the caller's current span, say); null
     * when nothing is observed.
     */
    Object requester();

    /** {@code statement}, carrying the requests of {@code requesters} in their order, observed while it runs. */
    <T> Uni<T> ran(List<Object> requesters, Uni<T> statement);

    /** An observer that only counts the requests of each statement ({@code requests}), as tests need. */
    static StatementObserver counting(IntConsumer requests) {
        return new StatementObserver() {
            @Override
            public Object requester() {
                return null;
            }

            @Override
            public <T> Uni<T> ran(List<Object> requesters, Uni<T> statement) {
                requests.accept(requesters.size());
                return statement;
            }
        };
    }
}
