package io.pigeon.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.Sqs;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.InvalidAttributeNameException;
import software.amazon.awssdk.services.sqs.model.ListQueuesResponse;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.QueueNameExistsException;
import software.amazon.awssdk.services.sqs.model.SqsException;

/**
 * The queue actions through the AWS SDK for Java v2 (the JSON protocol), as AWS's SQS API reference documents
 * them: create with attributes and tags, URL, list by prefix with paging, attributes (All and each), tags, dead-letter
 * sources, delete, and the errors the SDK maps to its exception types. Each test is its own project (the access key
 * id), so it sees only the queues it makes.
 */
@QuarkusTest
class SqsJavaSdkQueueTest {

    private static final Pattern QUEUE_URL = Pattern.compile("http://[^/]+/(\\d{12})/([\\w-]+)");

    private final String project = Api.newProject();
    private SqsClient sqs;

    @BeforeEach
    void openClient() {
        sqs = Sqs.clientFor(project);
    }

    @AfterEach
    void closeClient() {
        sqs.close();
    }

    @Test
    void createQueueWithAttributesGivesAQueueUrlOnTheCallersHostAndReadsThemBack() {
        String url = sqs.createQueue(b -> b.queueName("orders")
                        .attributesWithStrings(Map.of(
                                "VisibilityTimeout", "45",
                                "DelaySeconds", "5",
                                "MessageRetentionPeriod", "86400",
                                "ReceiveMessageWaitTimeSeconds", "3",
                                "MaximumMessageSize", "2048")))
                .queueUrl();
        Matcher parts = QUEUE_URL.matcher(url);
        assertTrue(parts.matches(), url);
        assertEquals(Sqs.endpoint().getAuthority(), URI.create(url).getAuthority(), "the host the client called");
        assertEquals("orders", parts.group(2));
        assertEquals(url, sqs.getQueueUrl(b -> b.queueName("orders")).queueUrl());

        Map<String, String> all = sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
                .attributesAsStrings();
        assertEquals("45", all.get("VisibilityTimeout"), all.toString());
        assertEquals("5", all.get("DelaySeconds"), all.toString());
        assertEquals("86400", all.get("MessageRetentionPeriod"), all.toString());
        assertEquals("3", all.get("ReceiveMessageWaitTimeSeconds"), all.toString());
        assertEquals("2048", all.get("MaximumMessageSize"), all.toString());
        assertEquals("arn:aws:sqs:us-east-1:" + parts.group(1) + ":orders", all.get("QueueArn"), all.toString());
        for (String count : List.of(
                "ApproximateNumberOfMessages",
                "ApproximateNumberOfMessagesNotVisible",
                "ApproximateNumberOfMessagesDelayed")) {
            assertEquals("0", all.get(count), count + " in " + all);
        }
        long now = System.currentTimeMillis() / 1000;
        for (String stamp : List.of("CreatedTimestamp", "LastModifiedTimestamp")) {
            long seconds = Long.parseLong(all.get(stamp)); // epoch seconds, as AWS writes them
            assertTrue(Math.abs(now - seconds) < 3600, stamp + " " + seconds + " is not about now (" + now + ")");
        }

        for (String name : List.of("VisibilityTimeout", "DelaySeconds", "QueueArn", "ApproximateNumberOfMessages")) {
            Map<String, String> one = sqs.getQueueAttributes(
                            b -> b.queueUrl(url).attributeNamesWithStrings(name))
                    .attributesAsStrings();
            assertEquals(Map.of(name, all.get(name)), one, "asked for " + name + " alone");
        }
    }

    @Test
    void aNewQueueHasAwsDefaults() {
        String url = sqs.createQueue(b -> b.queueName("defaults")).queueUrl();
        Map<String, String> all = sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNames(QueueAttributeName.ALL))
                .attributesAsStrings();
        assertEquals("30", all.get("VisibilityTimeout"), all.toString());
        assertEquals("0", all.get("DelaySeconds"), all.toString());
        assertEquals("0", all.get("ReceiveMessageWaitTimeSeconds"), all.toString());
        assertEquals("345600", all.get("MessageRetentionPeriod"), all.toString());
    }

    @Test
    void createQueueAgainIsTheSameQueueWithTheSameAttributesAndRefusedWithOthers() {
        Map<String, String> attributes = Map.of("VisibilityTimeout", "60");
        String url = sqs.createQueue(b -> b.queueName("again").attributesWithStrings(attributes))
                .queueUrl();
        assertEquals(
                url,
                sqs.createQueue(b -> b.queueName("again").attributesWithStrings(attributes))
                        .queueUrl());

        QueueNameExistsException refused = assertThrows(
                QueueNameExistsException.class,
                () -> sqs.createQueue(
                        b -> b.queueName("again").attributesWithStrings(Map.of("VisibilityTimeout", "61"))));
        assertAwsError(refused, 400, "QueueAlreadyExists");
        assertEquals("60", attribute(url, "VisibilityTimeout"), "nothing changed");
    }

    @Test
    void setQueueAttributesChangesEachOneAndRefusesAValueOutOfItsBounds() {
        String url = sqs.createQueue(b -> b.queueName("settable")).queueUrl();
        sqs.setQueueAttributes(b -> b.queueUrl(url)
                .attributesWithStrings(Map.of(
                        "VisibilityTimeout", "43200",
                        "DelaySeconds", "900",
                        "ReceiveMessageWaitTimeSeconds", "20",
                        "MessageRetentionPeriod", "1209600",
                        "MaximumMessageSize", "1024")));
        assertEquals("43200", attribute(url, "VisibilityTimeout"));
        assertEquals("900", attribute(url, "DelaySeconds"));
        assertEquals("20", attribute(url, "ReceiveMessageWaitTimeSeconds"));
        assertEquals("1209600", attribute(url, "MessageRetentionPeriod"));
        assertEquals("1024", attribute(url, "MaximumMessageSize"));

        for (Map.Entry<String, String> outOfBounds : Map.of(
                        "VisibilityTimeout", "43201",
                        "DelaySeconds", "901",
                        "ReceiveMessageWaitTimeSeconds", "21",
                        "MessageRetentionPeriod", "59")
                .entrySet()) {
            SqsException refused = assertThrows(
                    SqsException.class,
                    () -> sqs.setQueueAttributes(
                            b -> b.queueUrl(url).attributesWithStrings(Map.ofEntries(outOfBounds))),
                    outOfBounds.toString());
            assertAwsError(refused, 400, "InvalidAttributeValue");
        }
        assertEquals("43200", attribute(url, "VisibilityTimeout"), "nothing changed");
        assertEquals("900", attribute(url, "DelaySeconds"), "nothing changed");
    }

    @Test
    void anUnknownAttributeNameIsInvalidAttributeName() {
        String url = sqs.createQueue(b -> b.queueName("names")).queueUrl();
        InvalidAttributeNameException read = assertThrows(
                InvalidAttributeNameException.class,
                () -> sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings("NoSuchAttribute")));
        assertAwsError(read, 400, "InvalidAttributeName");
        InvalidAttributeNameException written = assertThrows(
                InvalidAttributeNameException.class,
                () -> sqs.setQueueAttributes(
                        b -> b.queueUrl(url).attributesWithStrings(Map.of("NoSuchAttribute", "1"))));
        assertAwsError(written, 400, "InvalidAttributeName");
    }

    @Test
    void listQueuesFiltersByPrefixAndPages() {
        List<String> made = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String name = "jobs-" + i;
            made.add(sqs.createQueue(b -> b.queueName(name)).queueUrl());
        }
        String other = sqs.createQueue(b -> b.queueName("other")).queueUrl();

        List<String> listed = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            String next = token;
            ListQueuesResponse page =
                    sqs.listQueues(b -> b.queueNamePrefix("jobs-").maxResults(2).nextToken(next));
            assertTrue(page.queueUrls().size() <= 2, page.toString());
            listed.addAll(page.queueUrls());
            token = page.nextToken();
            pages++;
        } while (token != null && pages < 10);
        assertEquals(3, pages, "5 queues in pages of 2");
        assertEquals(made, listed.stream().sorted().toList());

        assertEquals(made.size() + 1, sqs.listQueues().queueUrls().size());
        assertTrue(sqs.listQueues().queueUrls().contains(other));
        assertNull(sqs.listQueues().nextToken(), "no MaxResults, no paging");
        assertEquals(
                made,
                sqs.listQueuesPaginator(b -> b.queueNamePrefix("jobs-").maxResults(1)).queueUrls().stream()
                        .sorted()
                        .toList());
        assertAwsError(
                assertThrows(SqsException.class, () -> sqs.listQueues(b -> b.maxResults(5000))),
                400,
                "InvalidParameterValue");
    }

    @Test
    void tagsAreSetAtCreationAddedAndRemoved() {
        String url = sqs.createQueue(b -> b.queueName("tagged").tags(Map.of("team", "platform", "cost", "42")))
                .queueUrl();
        assertEquals(
                Map.of("team", "platform", "cost", "42"),
                sqs.listQueueTags(b -> b.queueUrl(url)).tags());
        sqs.tagQueue(b -> b.queueUrl(url).tags(Map.of("env", "test", "cost", "43")));
        assertEquals(
                Map.of("team", "platform", "cost", "43", "env", "test"),
                sqs.listQueueTags(b -> b.queueUrl(url)).tags());
        sqs.untagQueue(b -> b.queueUrl(url).tagKeys("team", "cost"));
        assertEquals(
                Map.of("env", "test"), sqs.listQueueTags(b -> b.queueUrl(url)).tags());
    }

    @Test
    void aRedrivePolicyNamesItsDeadLetterQueueWhichListsItsSources() throws Exception {
        String dlq = sqs.createQueue(b -> b.queueName("dead")).queueUrl();
        String dlqArn = attribute(dlq, "QueueArn");
        String policy = "{\"deadLetterTargetArn\":\"" + dlqArn + "\",\"maxReceiveCount\":\"3\"}";
        String source = sqs.createQueue(
                        b -> b.queueName("source").attributesWithStrings(Map.of("RedrivePolicy", policy)))
                .queueUrl();
        sqs.createQueue(b -> b.queueName("unrelated"));

        JsonNode read = new ObjectMapper().readTree(attribute(source, "RedrivePolicy"));
        assertEquals(dlqArn, read.path("deadLetterTargetArn").asText(), read.toString());
        assertEquals("3", read.path("maxReceiveCount").asText(), read.toString());
        assertEquals(
                List.of(source),
                sqs.listDeadLetterSourceQueues(b -> b.queueUrl(dlq)).queueUrls());
        assertEquals(
                List.of(),
                sqs.listDeadLetterSourceQueues(b -> b.queueUrl(source)).queueUrls());
    }

    @Test
    void aQueueThatDoesNotExistIsNonExistentQueue() {
        QueueDoesNotExistException byName =
                assertThrows(QueueDoesNotExistException.class, () -> sqs.getQueueUrl(b -> b.queueName("missing")));
        assertAwsError(byName, 400, "AWS.SimpleQueueService.NonExistentQueue");

        String url = sqs.createQueue(b -> b.queueName("present")).queueUrl();
        String missing = url.replace("/present", "/missing");
        assertAwsError(
                assertThrows(
                        QueueDoesNotExistException.class,
                        () -> sqs.getQueueAttributes(b -> b.queueUrl(missing).attributeNames(QueueAttributeName.ALL))),
                400,
                "AWS.SimpleQueueService.NonExistentQueue");
        assertThrows(QueueDoesNotExistException.class, () -> sqs.deleteQueue(b -> b.queueUrl(missing)));
        assertThrows(QueueDoesNotExistException.class, () -> sqs.listQueueTags(b -> b.queueUrl(missing)));
    }

    @Test
    void deleteQueueRemovesIt() {
        String url = sqs.createQueue(b -> b.queueName("doomed")).queueUrl();
        sqs.deleteQueue(b -> b.queueUrl(url));
        // AWS allows up to 60 s for a deletion to be seen; Pigeon's is immediate, polled all the same.
        Eventually.await("the deleted queue is gone", Duration.ofSeconds(10), () -> {
            try {
                sqs.getQueueUrl(b -> b.queueName("doomed"));
                return false;
            } catch (QueueDoesNotExistException gone) {
                return true;
            }
        });
        assertFalse(sqs.listQueues().queueUrls().contains(url));
    }

    @Test
    void anotherProjectSeesNoneOfTheQueues() {
        String url = sqs.createQueue(b -> b.queueName("private")).queueUrl();
        try (SqsClient other = Sqs.clientFor(Api.newProject())) {
            assertThrows(QueueDoesNotExistException.class, () -> other.getQueueUrl(b -> b.queueName("private")));
            assertEquals(List.of(), other.listQueues().queueUrls());
            String mine = other.createQueue(b -> b.queueName("private")).queueUrl();
            assertFalse(mine.equals(url), "the same name in another project is another queue (account id)");
        }
        assertEquals(List.of(url), sqs.listQueues().queueUrls());
    }

    @Test
    void aBadQueueNameIsRefusedAndNothingIsMade() {
        String longest = "n".repeat(80);
        assertTrue(sqs.createQueue(b -> b.queueName(longest)).queueUrl().endsWith("/" + longest));
        for (String bad : List.of("n".repeat(81), "has space", "dot.ted", "slash/ed", "")) {
            SqsException refused =
                    assertThrows(SqsException.class, () -> sqs.createQueue(b -> b.queueName(bad)), "[" + bad + "]");
            assertEquals(400, refused.statusCode(), bad);
        }
        assertEquals(1, sqs.listQueues().queueUrls().size());
    }

    @Test
    void aFifoNameWithoutFifoQueueIsRefused() {
        SqsException refused = assertThrows(SqsException.class, () -> sqs.createQueue(b -> b.queueName("orders.fifo")));
        assertEquals(400, refused.statusCode());
        assertEquals("InvalidParameterValue", refused.awsErrorDetails().errorCode());
        assertEquals(List.of(), sqs.listQueues().queueUrls(), "no standard queue made in its place");
    }

    private String attribute(String url, String name) {
        return sqs.getQueueAttributes(b -> b.queueUrl(url).attributeNamesWithStrings(name))
                .attributesAsStrings()
                .get(name);
    }

    /** The status and AWS's error code as the SDK gives it (the query-compatible code where AWS sends one). */
    static void assertAwsError(AwsServiceException error, int status, String code) {
        assertEquals(status, error.statusCode(), error.toString());
        assertEquals(code, error.awsErrorDetails().errorCode(), error.toString());
    }
}
