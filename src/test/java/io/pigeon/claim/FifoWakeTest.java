package io.pigeon.claim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Sqs;
import io.pigeon.waiting.QueueWaits;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Waiting claims on a "fifo" queue (issue 43, decision 0020) are woken when a group unblocks: consumer A holds the
 * first message of a group, consumer B waits (20 s) and finds nothing, since the group's only other message is
 * blocked behind A's; when A deletes its message (one by one, in bulk, or through SQS's DeleteMessage), releases its
 * claim, or its claim expires, B gets the next message of the group long before its wait ends. The bound asserted
 * (10 s, half the wait) tells a wake from the wait's end on a loaded machine; it is no speed check.
 */
@QuarkusTest
class FifoWakeTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long WOKEN_WITHIN_MILLIS = 10_000;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String project = Api.newProject();

    @Inject
    QueueWaits waits;

    /** A claim that waits up to 20 s, sent now in parallel with the test. */
    private CompletableFuture<HttpResponse<String>> waitingClaim(String queue) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(
                        RestAssured.baseURI + ":" + RestAssured.port + "/v2/queues/" + queue + "/claims?limit=1"))
                .timeout(Duration.ofSeconds(60))
                .header("X-Project-Id", project)
                .header("Client-ID", Api.CLIENT_ID)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"ttl\": 300, \"grace\": 60, \"wait\": 20}"))
                .build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    private void fifoQueue(String queue) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_ordering\": \"fifo\"}")
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
    }

    /** Posts the messages (JSON objects) in one post; their ids, in order. */
    private List<String> post(String queue, String... messages) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [" + String.join(", ", messages) + "]}")
                .post("/v2/queues/" + queue + "/messages")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getList("resources", String.class)
                .stream()
                .map(href -> href.substring(href.lastIndexOf('/') + 1))
                .toList();
    }

    private ExtractableResponse<Response> claimOne(String queue) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/" + queue + "/claims?limit=1")
                .then()
                .statusCode(201)
                .extract();
    }

    /** Consumer B waits, has found nothing, and is held (its first try ran before it joined its queue's line). */
    private CompletableFuture<HttpResponse<String>> consumerBWaits(String queue) {
        int before = waits.waiting();
        CompletableFuture<HttpResponse<String>> waiting = waitingClaim(queue);
        Eventually.await("consumer B waits", Duration.ofSeconds(10), () -> waits.waiting() > before);
        return waiting;
    }

    /**
     * Lets a new waiter settle: its line, new, tries it once more half a second after the queue is marked (a post that
     * began before the mark would tell nobody), and that try would find the group unblocked by itself. Past it, only a
     * notice (or a timer) wakes the waiter.
     */
    private static void settle() throws InterruptedException {
        Thread.sleep(2000);
    }

    /** B's answer is a claim of exactly {@code body}, answered well within its wait after {@code since}. */
    private static void assertWokenWith(CompletableFuture<HttpResponse<String>> waiting, String body, long since)
            throws Exception {
        HttpResponse<String> answer = waiting.get(40, TimeUnit.SECONDS);
        long millis = (System.nanoTime() - since) / 1_000_000;
        assertEquals(201, answer.statusCode(), "B's wait ended empty after " + millis + " ms: " + answer.body());
        JsonNode messages = JSON.readTree(answer.body()).path("messages");
        assertEquals(1, messages.size(), answer.body());
        assertEquals(body, messages.get(0).path("body").asText());
        System.out.printf("fifo wake: B answered %d ms after the group unblocked%n", millis);
        assertTrue(millis < WOKEN_WITHIN_MILLIS, "B woken " + millis + " ms after the group unblocked");
    }

    @Test
    void deletingTheClaimedMessageWakesAWaiterForTheNextOfItsGroup() throws Exception {
        fifoQueue("deleted");
        post("deleted", "{\"body\": \"m1\", \"group\": \"g\"}", "{\"body\": \"m2\", \"group\": \"g\"}");
        ExtractableResponse<Response> a = claimOne("deleted");
        assertEquals(List.of("m1"), a.jsonPath().getList("messages.body", String.class));
        CompletableFuture<HttpResponse<String>> b = consumerBWaits("deleted");
        settle();
        long unblocked = System.nanoTime();
        Api.as(project)
                .delete(a.jsonPath().getString("messages[0].href"))
                .then()
                .statusCode(204);
        assertWokenWith(b, "m2", unblocked);
    }

    @Test
    void aBulkDeleteOfTheClaimedMessageWakesAWaiter() throws Exception {
        fifoQueue("bulk");
        List<String> ids = post("bulk", "{\"body\": \"m1\", \"group\": \"g\"}", "{\"body\": \"m2\", \"group\": \"g\"}");
        ExtractableResponse<Response> a = claimOne("bulk");
        String claimId = a.header("Location").substring(a.header("Location").lastIndexOf('/') + 1);
        CompletableFuture<HttpResponse<String>> b = consumerBWaits("bulk");
        settle();
        long unblocked = System.nanoTime();
        Api.as(project)
                .delete("/v2/queues/bulk/messages?ids=" + ids.get(0) + "&claim_ids=" + claimId)
                .then()
                .statusCode(204);
        assertWokenWith(b, "m2", unblocked);
    }

    @Test
    void deletingADelayedMessageThatHoldsBackItsGroupWakesAWaiter() throws Exception {
        fifoQueue("delayed");
        List<String> ids = post(
                "delayed",
                "{\"body\": \"m1\", \"group\": \"g\", \"delay\": 600}",
                "{\"body\": \"m2\", \"group\": \"g\"}");
        CompletableFuture<HttpResponse<String>> b = consumerBWaits("delayed");
        settle();
        long unblocked = System.nanoTime();
        Api.as(project)
                .delete("/v2/queues/delayed/messages/" + ids.get(0))
                .then()
                .statusCode(204);
        assertWokenWith(b, "m2", unblocked);
    }

    @Test
    void releasingTheClaimWakesAWaiterForTheReleasedMessage() throws Exception {
        fifoQueue("released");
        post("released", "{\"body\": \"m1\", \"group\": \"g\"}", "{\"body\": \"m2\", \"group\": \"g\"}");
        ExtractableResponse<Response> a = claimOne("released");
        CompletableFuture<HttpResponse<String>> b = consumerBWaits("released");
        settle();
        long unblocked = System.nanoTime();
        Api.as(project).delete(a.header("Location")).then().statusCode(204);
        // Released, m1 is claimed again before anything later in its group.
        assertWokenWith(b, "m1", unblocked);
    }

    private static String fifoSqsQueue(SqsClient sqs, String name) {
        return sqs.createQueue(create -> create.queueName(name)
                        .attributesWithStrings(Map.of("FifoQueue", "true", "ContentBasedDeduplication", "true")))
                .queueUrl();
    }

    private static CompletableFuture<List<Message>> receiveWaiting(SqsClient sqs, String url) {
        return CompletableFuture.supplyAsync(() -> sqs.receiveMessage(
                        receive -> receive.queueUrl(url).maxNumberOfMessages(1).waitTimeSeconds(20))
                .messages());
    }

    private static void assertReceivedWithin(CompletableFuture<List<Message>> waiting, String body, long since)
            throws Exception {
        List<Message> got = waiting.get(40, TimeUnit.SECONDS);
        long millis = (System.nanoTime() - since) / 1_000_000;
        assertEquals(List.of(body), got.stream().map(Message::body).toList(), "after " + millis + " ms");
        System.out.printf("fifo wake (SQS): B answered %d ms after the group unblocked%n", millis);
        assertTrue(millis < WOKEN_WITHIN_MILLIS, "B woken " + millis + " ms after the group unblocked");
    }

    @Test
    void anSqsDeleteMessageWakesAReceiveWaitingOnTheGroup() throws Exception {
        try (SqsClient sqs = Sqs.clientFor(project)) {
            String url = fifoSqsQueue(sqs, "deleted.fifo");
            sqs.sendMessage(send -> send.queueUrl(url).messageGroupId("g").messageBody("m1"));
            sqs.sendMessage(send -> send.queueUrl(url).messageGroupId("g").messageBody("m2"));
            Message a = sqs.receiveMessage(receive -> receive.queueUrl(url).maxNumberOfMessages(1))
                    .messages()
                    .get(0);
            assertEquals("m1", a.body());
            int before = waits.waiting();
            CompletableFuture<List<Message>> b = receiveWaiting(sqs, url);
            Eventually.await("consumer B waits", Duration.ofSeconds(10), () -> waits.waiting() > before);
            settle();
            long unblocked = System.nanoTime();
            sqs.deleteMessage(delete -> delete.queueUrl(url).receiptHandle(a.receiptHandle()));
            assertReceivedWithin(b, "m2", unblocked);
        }
    }

    /**
     * A claim that expires unblocks its group without any statement telling the waiters: the waiter's own timer,
     * armed at the earliest end of a live claim of its queue (read after its empty try), wakes it then.
     */
    @Test
    void aClaimThatExpiresWakesAWaiterWithinItsWait() throws Exception {
        try (SqsClient sqs = Sqs.clientFor(project)) {
            String url = fifoSqsQueue(sqs, "expiring.fifo");
            sqs.sendMessage(send -> send.queueUrl(url).messageGroupId("g").messageBody("m1"));
            sqs.sendMessage(send -> send.queueUrl(url).messageGroupId("g").messageBody("m2"));
            long received = System.nanoTime();
            Message a = sqs.receiveMessage(receive ->
                            receive.queueUrl(url).maxNumberOfMessages(1).visibilityTimeout(3))
                    .messages()
                    .get(0);
            assertEquals("m1", a.body());
            CompletableFuture<List<Message>> b = receiveWaiting(sqs, url);
            // m1 comes back first when A's visibility timeout (3 s) ends: not before, and well within B's wait.
            assertReceivedWithin(b, "m1", received);
            assertTrue((System.nanoTime() - received) / 1_000_000 >= 2500, "not before the claim ended");
        }
    }
}
