package io.pigeon.sqs;

import io.pigeon.pool.PoolClients;
import io.pigeon.queue.QueueName;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * SQS's listings of a project's queues (ListQueues by name prefix, ListDeadLetterSourceQueues), in name order across
 * the configured database and every pool, paged by an opaque {@code NextToken}: the last name given, encoded. Without
 * {@code MaxResults}, SQS gives up to 1,000 queues and no token.
 */
@ApplicationScoped
public class SqsQueueListings {

    static final int MAX_RESULTS = 1000;

    /** One page: the queues' names, and the token of the next page (null when there is none). */
    public record Page(List<String> names, String nextToken) {}

    private static final Pattern NAME_CHARACTERS = Pattern.compile("[A-Za-z0-9_-]*");

    private final PoolClients poolClients;
    private final SqsQueueStore store;

    public SqsQueueListings(PoolClients poolClients, SqsQueueStore store) {
        this.poolClients = poolClients;
        this.store = store;
    }

    public Uni<Page> queues(String project, String prefix, Integer maxResults, String nextToken) {
        String start = prefix == null ? "" : prefix;
        // A prefix with a character no queue name holds matches nothing, and some (a NUL) PostgreSQL refuses in text.
        if (start.length() > QueueName.MAX_STORED_LENGTH
                || !NAME_CHARACTERS.matcher(start).matches()) {
            return Uni.createFrom().item(new Page(List.of(), null));
        }
        return page(
                maxResults,
                nextToken,
                (after, limit) -> db -> store.list(db, project, after, QueueName.TOPIC_PREFIX, start, limit));
    }

    public Uni<Page> deadLetterSources(String project, QueueName target, Integer maxResults, String nextToken) {
        return page(
                maxResults,
                nextToken,
                (after, limit) -> db ->
                        store.deadLetterSources(db, project, target.value(), after, QueueName.TOPIC_PREFIX, limit));
    }

    /** One query per database, given where to start and how many. */
    @FunctionalInterface
    private interface Query {
        Function<SqlClient, Uni<List<String>>> of(String after, int limit);
    }

    private Uni<Page> page(Integer maxResults, String nextToken, Query query) {
        if (maxResults != null && (maxResults < 1 || maxResults > MAX_RESULTS)) {
            throw SqsRefusal.invalidParameter(
                    "MaxResults", maxResults.toString(), "must be an integer from 1 to " + MAX_RESULTS + ".");
        }
        int limit = maxResults == null ? MAX_RESULTS : maxResults;
        String after = nextToken == null ? "" : afterToken(nextToken);
        Function<SqlClient, Uni<List<String>>> each = query.of(after, limit + 1);
        return poolClients.onEvery(database -> each.apply(database.client())).map(pages -> {
            List<String> names = pages.stream()
                    .flatMap(List::stream)
                    .sorted()
                    .limit(limit + 1L)
                    .toList();
            if (names.size() <= limit) {
                return new Page(names, null);
            }
            List<String> shown = names.subList(0, limit);
            return new Page(shown, maxResults == null ? null : token(shown.get(limit - 1)));
        });
    }

    private static String token(String lastName) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(lastName.getBytes(StandardCharsets.UTF_8));
    }

    private static String afterToken(String token) {
        try {
            String name = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
            return QueueName.stored(name).value();
        } catch (RuntimeException e) {
            throw SqsRefusal.invalidParameter("NextToken", token, "it is not a token this server gave.");
        }
    }
}
