package io.pigeon.api.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.quota.SmallQuotasProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Sqs;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The bound on remembered ReceiveRequestAttemptIds (pigeon.sqs.max-receive-attempts-per-project, 3 in this profile):
 * a FIFO receive with a new id beyond it is refused (OverLimit) and takes nothing, while a remembered id is still
 * replayed and a receive without an id still served; an id past its 5 minutes is forgotten (a new receive under it),
 * and the sweeper deletes its row.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
class SqsReceiveAttemptsBoundTest {

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    private final String project = Api.newProject();

    private static List<Message> receive(SqsClient sqs, String url, String attemptId, int visibility) {
        return sqs.receiveMessage(receive -> receive.queueUrl(url)
                        .maxNumberOfMessages(1)
                        .visibilityTimeout(visibility)
                        .receiveRequestAttemptId(attemptId))
                .messages();
    }

    private long remembered() {
        return Db.count(pool, "SELECT count(*) FROM sqs_receive_attempts WHERE project = $1", project);
    }

    @Test
    void aNewAttemptIdBeyondTheBoundIsRefusedAndTakesNothing() {
        try (SqsClient sqs = Sqs.clientFor(project)) {
            String url = sqs.createQueue(create -> create.queueName("bounded.fifo")
                            .attributesWithStrings(Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true")))
                    .queueUrl();
            // Three messages (the profile's keys bound is 3 too); c is received with a visibility of 0, so it stays
            // free.
            for (String group : List.of("a", "b", "c")) {
                sqs.sendMessage(send -> send.queueUrl(url).messageBody(group).messageGroupId(group));
            }
            assertEquals("a", receive(sqs, url, "one", 60).get(0).body());
            assertEquals("b", receive(sqs, url, "two", 60).get(0).body());
            assertEquals("c", receive(sqs, url, "three", 0).get(0).body());
            assertEquals(3, remembered());
            SqsException over = assertThrows(SqsException.class, () -> receive(sqs, url, "four", 0));
            assertEquals("OverLimit", over.awsErrorDetails().errorCode());
            assertEquals("c", receive(sqs, url, null, 0).get(0).body(), "the refused receive took nothing");
            assertEquals("a", receive(sqs, url, "one", 60).get(0).body(), "a remembered id is still replayed");
            // Past its 5 minutes an id is forgotten: the same id makes a new receive, in the row's place.
            Db.run(
                    pool,
                    "UPDATE sqs_receive_attempts SET expires_at = now() - interval '1 second'"
                            + " WHERE project = $1 AND attempt_id = 'two'",
                    project);
            assertEquals("c", receive(sqs, url, "two", 0).get(0).body());
            assertEquals(3, remembered());
            // The sweeper deletes the rows whose time has passed.
            Db.run(
                    pool,
                    "UPDATE sqs_receive_attempts SET expires_at = now() - interval '1 second' WHERE project = $1",
                    project);
            sweeper.sweep().await().indefinitely();
            assertEquals(0, remembered());
        }
    }

    @Test
    void receivesWithNewIdsSentAtOnceNeverPassTheBound() throws Exception {
        // Each receive answered is remembered, so that its retries repeat it; those beyond the bound are refused and
        // give back what they took, however many arrive at once. Two ids are remembered already (rows of their own:
        // the profile lets a project post three messages), so one more fits, and three messages are free.
        try (SqsClient sqs = Sqs.clientFor(project)) {
            String url = sqs.createQueue(create -> create.queueName("at-once.fifo")
                            .attributesWithStrings(Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true")))
                    .queueUrl();
            for (String group : List.of("a", "b", "c")) {
                sqs.sendMessage(send -> send.queueUrl(url).messageBody(group).messageGroupId(group));
            }
            Db.run(
                    pool,
                    "INSERT INTO sqs_receive_attempts (queue_id, attempt_id, project, claim_id, message_ids,"
                            + " receive_counts, visible_until, expires_at)"
                            + " SELECT q.id, 'held-' || n, q.project, gen_random_uuid(), '{1}', '{1}', now(),"
                            + " now() + interval '5 minutes'"
                            + " FROM queues q CROSS JOIN generate_series(1, 2) n WHERE q.project = $1",
                    project);
            int senders = 30;
            ExecutorService threads = Executors.newFixedThreadPool(senders);
            CyclicBarrier together = new CyclicBarrier(senders);
            try {
                List<Future<Boolean>> receives = new ArrayList<>();
                for (int i = 0; i < senders; i++) {
                    String attemptId = "at-once-" + i;
                    receives.add(threads.submit(() -> {
                        together.await();
                        try {
                            return !receive(sqs, url, attemptId, 600).isEmpty();
                        } catch (SqsException refused) {
                            assertEquals("OverLimit", refused.awsErrorDetails().errorCode());
                            return false;
                        }
                    }));
                }
                int answered = 0;
                for (Future<Boolean> receive : receives) {
                    answered += receive.get() ? 1 : 0;
                }
                assertEquals(3, remembered(), "the bound");
                assertEquals(1, answered, "every receive answered is remembered");
                assertEquals(
                        2,
                        Db.count(
                                pool,
                                "SELECT count(*) FROM messages m JOIN queues q ON q.id = m.queue_id"
                                        + " WHERE q.project = $1 AND (m.claim_id IS NULL OR m.claim_expires_at <= now())",
                                project),
                        "a refused receive gives back what it took");
            } finally {
                threads.shutdownNow();
            }
        }
    }
}
