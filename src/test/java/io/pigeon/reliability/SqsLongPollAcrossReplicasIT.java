package io.pigeon.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.PostgresResource;
import io.pigeon.testing.Sqs;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Two Pigeon processes over one database, each reached by its own AWS SDK for Java v2 client: a ReceiveMessage long
 * poll (WaitTimeSeconds 20) on replica B is woken by a SendMessage on replica A, and the queue URL replica A wrote
 * (its own host and port) serves on replica B, since a queue is found by account and name, never by host.
 */
@Tag("sqs-messages")
class SqsLongPollAcrossReplicasIT {

    private final String project = "sqs-longpoll-" + System.nanoTime();

    @Test
    void aSendOnOneReplicaWakesAReceiveWaitingOnTheOther() throws Exception {
        var config = new PostgresResource().start();
        Replica a = Replica.start("sqs-longpoll-a", config, Replica.FIRST_JIT_TIER);
        Replica b = Replica.start("sqs-longpoll-b", config, Replica.FIRST_JIT_TIER);
        try (SqsClient onA = Sqs.clientFor(project, URI.create(a.url()));
                SqsClient onB = Sqs.clientFor(project, URI.create(b.url()))) {
            a.awaitReady();
            b.awaitReady();
            String url = onA.createQueue(q -> q.queueName("across")).queueUrl();
            assertTrue(url.startsWith(a.url() + "/"), "a queue URL names the replica called: " + url);

            for (int trial = 0; trial < 5; trial++) {
                String body = "across " + trial;
                CompletableFuture<List<Message>> waiting = CompletableFuture.supplyAsync(
                        () -> onB.receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(20))
                                .messages());
                Thread.sleep(1000); // lets the receive start waiting; the verdict does not depend on it
                long sent = System.nanoTime();
                onA.sendMessage(s -> s.queueUrl(url).messageBody(body));
                List<Message> got = waiting.get(40, TimeUnit.SECONDS);
                long wokenMillis = (System.nanoTime() - sent) / 1_000_000;
                assertEquals(List.of(body), got.stream().map(Message::body).toList());
                System.out.printf("SQS receive waiting on B, send on A: answered %d ms after the send%n", wokenMillis);
                // Woken by the send, not answered when its 20 s ran out (a semantic bound, not a speed goal).
                assertTrue(wokenMillis < 10_000, "woken " + wokenMillis + " ms after the send");
                String handle = got.get(0).receiptHandle();
                onA.deleteMessage(d -> d.queueUrl(url).receiptHandle(handle)); // a handle from B serves on A
            }
            assertEquals(
                    "0",
                    onB.getQueueAttributes(
                                    g -> g.queueUrl(url).attributeNamesWithStrings("ApproximateNumberOfMessages"))
                            .attributesAsStrings()
                            .get("ApproximateNumberOfMessages"));
        } finally {
            a.kill();
            b.kill();
        }
    }
}
