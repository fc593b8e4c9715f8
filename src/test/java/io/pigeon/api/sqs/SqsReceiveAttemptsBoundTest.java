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
import java.util.List;
import java.util.Map;
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
}
