package io.pigeon.api.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.URL;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeNameException;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.QueueNameExistsException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The queue actions through aws-sdk-java v2 (JSON 1.0), configured with the endpoint and nothing else of Pigeon's: the
 * SDK parses every answer, maps every error to its exception class and reads AWS's code from the query-compatible
 * header.
 */
@QuarkusTest
class SqsJavaSdkTest {

    @TestHTTPResource("/")
    URL endpoint;

    private SqsClient sqs;

    @BeforeEach
    void client() {
        sqs = SqsClient.builder()
                .endpointOverride(URI.create(endpoint.toString()))
                .region(Region.US_EAST_1)
                .credentialsProvider(
                        StaticCredentialsProvider.create(AwsBasicCredentials.create(Api.newProject(), "unused")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
    }

    @AfterEach
    void close() {
        sqs.close();
    }

    @Test
    void queuesAreCreatedFoundTunedTaggedListedPurgedAndDeleted() {
        String url = sqs.createQueue(create -> create.queueName("sdk-jobs")
                        .attributes(Map.of(QueueAttributeName.VISIBILITY_TIMEOUT, "60"))
                        .tags(Map.of("team", "pigeon")))
                .queueUrl();
        assertTrue(url.startsWith(endpoint.toString().replaceAll("/$", "")), url);
        assertEquals(url, sqs.getQueueUrl(get -> get.queueName("sdk-jobs")).queueUrl());

        String dlq = sqs.createQueue(create -> create.queueName("sdk-dead")).queueUrl();
        String dlqArn = sqs.getQueueAttributes(get -> get.queueUrl(dlq).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes()
                .get(QueueAttributeName.QUEUE_ARN);
        sqs.setQueueAttributes(set -> set.queueUrl(url)
                .attributes(Map.of(
                        QueueAttributeName.DELAY_SECONDS,
                        "3",
                        QueueAttributeName.REDRIVE_POLICY,
                        "{\"deadLetterTargetArn\":\"" + dlqArn + "\",\"maxReceiveCount\":\"4\"}")));
        Map<QueueAttributeName, String> attributes = sqs.getQueueAttributes(
                        get -> get.queueUrl(url).attributeNames(QueueAttributeName.ALL))
                .attributes();
        assertEquals("60", attributes.get(QueueAttributeName.VISIBILITY_TIMEOUT));
        assertEquals("3", attributes.get(QueueAttributeName.DELAY_SECONDS));
        assertEquals("0", attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES));
        assertEquals(
                "{\"deadLetterTargetArn\":\"" + dlqArn + "\",\"maxReceiveCount\":4}",
                attributes.get(QueueAttributeName.REDRIVE_POLICY));
        assertEquals(
                List.of(url),
                sqs.listDeadLetterSourceQueues(list -> list.queueUrl(dlq)).queueUrls());

        assertEquals(
                Map.of("team", "pigeon"),
                sqs.listQueueTags(tags -> tags.queueUrl(url)).tags());
        sqs.tagQueue(tag -> tag.queueUrl(url).tags(Map.of("env", "test")));
        sqs.untagQueue(untag -> untag.queueUrl(url).tagKeys("team"));
        assertEquals(
                Map.of("env", "test"),
                sqs.listQueueTags(tags -> tags.queueUrl(url)).tags());

        List<String> pages = sqs
                .listQueuesPaginator(list -> list.queueNamePrefix("sdk-").maxResults(1))
                .stream()
                .flatMap(page -> page.queueUrls().stream())
                .toList();
        assertEquals(List.of(dlq, url), pages);

        sqs.purgeQueue(purge -> purge.queueUrl(url));
        sqs.deleteQueue(delete -> delete.queueUrl(url));
        QueueDoesNotExistException gone =
                assertThrows(QueueDoesNotExistException.class, () -> sqs.getQueueUrl(get -> get.queueName("sdk-jobs")));
        assertEquals(
                "AWS.SimpleQueueService.NonExistentQueue",
                gone.awsErrorDetails().errorCode());
        assertEquals(400, gone.statusCode());
    }

    @Test
    void awsErrorsReachTheSdkAsItsExceptions() {
        sqs.createQueue(create -> create.queueName("sdk-same"));
        QueueNameExistsException exists = assertThrows(
                QueueNameExistsException.class,
                () -> sqs.createQueue(create ->
                        create.queueName("sdk-same").attributes(Map.of(QueueAttributeName.DELAY_SECONDS, "9"))));
        assertEquals("QueueAlreadyExists", exists.awsErrorDetails().errorCode());
        assertThrows(
                InvalidAttributeNameException.class, () -> sqs.createQueue(create -> create.queueName("sdk.fifo")));
        SqsException invalid = assertThrows(SqsException.class, () -> sqs.listQueues(list -> list.maxResults(5000)));
        assertEquals("InvalidParameterValue", invalid.awsErrorDetails().errorCode());
    }

    /**
     * A name in ReceiveMessage's attribute lists that SQS's model does not hold is InvalidAttributeName, as in
     * GetQueueAttributes, instead of an answer that reads as if the message had no such attribute; the model's names
     * are taken in both lists, and nothing is received by a refused call.
     */
    @Test
    void receiveRefusesAnAttributeNameSqsDoesNotKnow() {
        String url = sqs.createQueue(create -> create.queueName("sdk-names")).queueUrl();
        sqs.sendMessage(send -> send.queueUrl(url).messageBody("named"));
        assertThrows(
                InvalidAttributeNameException.class,
                () -> sqs.receiveMessage(receive -> receive.queueUrl(url)
                        .messageSystemAttributeNamesWithStrings("SentTimestamp", "SentTimeStamp")));
        assertThrows(
                InvalidAttributeNameException.class,
                () -> sqs.receiveMessage(receive -> receive.queueUrl(url).attributeNamesWithStrings("Bogus")));
        assertThrows(
                InvalidAttributeNameException.class,
                () -> sqs.receiveMessage(
                        receive -> receive.queueUrl(url).messageSystemAttributeNamesWithStrings("VisibilityTimeout")));
        var received = sqs.receiveMessage(receive -> receive.queueUrl(url)
                        .attributeNamesWithStrings("SenderId", "VisibilityTimeout")
                        .messageSystemAttributeNamesWithStrings("ApproximateReceiveCount", "MessageGroupId"))
                .messages();
        assertEquals(1, received.size());
        assertEquals("1", received.get(0).attributesAsStrings().get("ApproximateReceiveCount"));
        assertTrue(received.get(0).attributesAsStrings().containsKey("SenderId"));
    }
}
