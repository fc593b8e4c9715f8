package io.pigeon.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * A queue created through SQS's CreateQueue is placed as any other (issue 42, item 7): on a deployment with pools, by
 * weight among the pools that take new queues, never on a closed one, and its messages, sent and received through the
 * SQS API, live in the pool it was placed on. SQS has no way to name a flavor (CreateQueue's attributes are SQS's, and
 * Pigeon's {@code _flavor} is not one of them), so such a queue is placed as a Zaqar queue created without
 * {@code _flavor}: among the pools of no flavor.
 */
@QuarkusTest
class SqsPlacementTest {

    @Inject
    Pool pool;

    @Inject
    PoolService pools;

    @Inject
    PoolClients clients;

    @Inject
    FlavorService flavors;

    @TestHTTPResource("/")
    URL endpoint;

    private final String project = Api.newProject();
    private final String suffix = UUID.randomUUID().toString().substring(0, 8);
    private final List<String> registered = new ArrayList<>();

    private String register(String name, long weight) {
        String full = name + "-" + suffix;
        pools.register(full, new PoolSpec(Db.newDatabase(pool), weight, null, null))
                .await()
                .indefinitely();
        registered.add(full);
        return full;
    }

    @AfterEach
    void deregister() {
        Db.run(pool, "DELETE FROM placements WHERE project = $1", project);
        for (String name : registered) {
            Db.run(pool, "UPDATE pools SET flavor = NULL WHERE name = $1", name);
        }
        flavors.delete("sqs-gold-" + suffix).await().indefinitely();
        // The pools hold this test's queues: they are left registered only as long as the test needs them.
        for (String name : registered) {
            Db.run(pool, "DELETE FROM pools WHERE name = $1", name);
        }
    }

    private static long count(SqlClient server, String sql, Object... values) {
        return server.preparedQuery(sql)
                .execute(Tuple.from(values))
                .await()
                .indefinitely()
                .iterator()
                .next()
                .getLong(0);
    }

    @Test
    void queuesCreatedThroughSqsArePlacedOnPoolsAndTheirMessagesLiveThere() {
        String first = register("sqs-a", 1);
        String second = register("sqs-b", 1);
        String closed = register("sqs-closed", 0);
        String gold = register("sqs-gold", 5);
        flavors.create("sqs-gold-" + suffix, List.of(gold)).await().indefinitely();
        try (SqsClient sqs = SqsClient.builder()
                .endpointOverride(URI.create(endpoint.toString()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(project, "unused")))
                .httpClient(UrlConnectionHttpClient.create())
                .build()) {
            for (int i = 0; i < 12; i++) {
                String name = "placed-" + i;
                String url = sqs.createQueue(create -> create.queueName(name)).queueUrl();
                sqs.sendMessage(send -> send.queueUrl(url).messageBody("body of " + name));
                var placed =
                        Db.run(pool, "SELECT pool FROM placements WHERE project = $1 AND queue = $2", project, name);
                assertTrue(placed.iterator().hasNext(), name + " has a placement");
                String on = placed.iterator().next().getString(0);
                assertTrue(on.equals(first) || on.equals(second), name + " placed on " + on);
                SqlClient server = clients.of(on).await().indefinitely();
                assertEquals(
                        1,
                        count(server, "SELECT count(*) FROM queues WHERE project = $1 AND name = $2", project, name));
                assertEquals(
                        0,
                        count(pool, "SELECT count(*) FROM queues WHERE project = $1 AND name = $2", project, name),
                        name + " is not on the configured database");
                for (String other : List.of(first, second, closed, gold)) {
                    if (!other.equals(on)) {
                        assertEquals(
                                0,
                                count(
                                        clients.of(other).await().indefinitely(),
                                        "SELECT count(*) FROM queues WHERE project = $1 AND name = $2",
                                        project,
                                        name),
                                name + " is only on " + on);
                    }
                }
                assertEquals(
                        1,
                        count(
                                server,
                                "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1 AND q.name = $2",
                                project,
                                name),
                        name + "'s message is in its pool");
                List<Message> received =
                        sqs.receiveMessage(receive -> receive.queueUrl(url)).messages();
                assertEquals(1, received.size());
                assertEquals("body of " + name, received.get(0).body());
                sqs.deleteMessage(delete ->
                        delete.queueUrl(url).receiptHandle(received.get(0).receiptHandle()));
                assertEquals(
                        0,
                        count(
                                server,
                                "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id WHERE q.project = $1 AND q.name = $2",
                                project,
                                name));
            }
        }
    }
}
