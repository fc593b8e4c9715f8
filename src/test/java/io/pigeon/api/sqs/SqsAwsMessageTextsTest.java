package io.pigeon.api.sqs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

/**
 * The texts of refusals where clients and test suites compare AWS's words, not only its code: an empty batch names
 * the action's entry type, a bad queue name, message attribute name or type and too many tags are said as AWS says
 * them (moto's tests verified against AWS hold these texts). Raw JSON 1.0, read as an SDK reads {@code message}.
 */
@QuarkusTest
class SqsAwsMessageTextsTest {

    private final SqsClient sqs = new SqsClient(Api.newProject());

    @Test
    void anEmptyBatchNamesTheActionsEntryType() {
        String url = sqs.create("empty-batches");
        for (String action : new String[] {"SendMessageBatch", "DeleteMessageBatch", "ChangeMessageVisibilityBatch"}) {
            Response answer = sqs.json(action, "{\"QueueUrl\": \"" + url + "\", \"Entries\": []}");
            assertRefused(
                    answer,
                    "AWS.SimpleQueueService.EmptyBatchRequest",
                    "There should be at least one " + action + "RequestEntry in the request.");
        }
    }

    @Test
    void aBadQueueNameIsRefusedInAwsWords() {
        assertRefused(
                sqs.json("CreateQueue", "{\"QueueName\": \"/my/test\"}"),
                "InvalidParameterValue",
                "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length");
    }

    @Test
    void aBadMessageAttributeNameOrTypeIsRefusedInAwsWords() {
        String url = sqs.create("attribute-texts");
        assertRefused(
                sqs.json(
                        "SendMessage",
                        "{\"QueueUrl\": \"" + url
                                + "\", \"MessageBody\": \"b\", \"MessageAttributes\": {\"\u00f6ther\":"
                                + " {\"DataType\": \"String\", \"StringValue\": \"v\"}}}"),
                "InvalidParameterValue",
                "The message attribute name '\u00f6ther' is invalid. Attribute name can contain A-Z, a-z, 0-9,"
                        + " underscore (_), hyphen (-), and period (.) characters.");
        assertRefused(
                sqs.json(
                        "SendMessage",
                        "{\"QueueUrl\": \"" + url + "\", \"MessageBody\": \"b\", \"MessageAttributes\": {\"n\":"
                                + " {\"DataType\": \"InvalidNumber\", \"StringValue\": \"v\"}}}"),
                "InvalidParameterValue",
                "The message attribute 'n' has an invalid message attribute type, the set of supported type"
                        + " prefixes is Binary, Number, and String.");
    }

    @Test
    void tooManyTagsNameTheQueue() {
        String url = sqs.create("many-tags");
        StringBuilder tags = new StringBuilder();
        for (int i = 0; i < 51; i++) {
            tags.append(i == 0 ? "" : ", ").append("\"k").append(i).append("\": \"v\"");
        }
        assertRefused(
                sqs.json("TagQueue", "{\"QueueUrl\": \"" + url + "\", \"Tags\": {" + tags + "}}"),
                "InvalidParameterValue",
                "Too many tags added for queue many-tags.");
        String listed =
                sqs.json("ListQueueTags", "{\"QueueUrl\": \"" + url + "\"}").asString();
        assertFalse(listed.contains("k1"), "a refused TagQueue sets no tag: " + listed);
    }

    private static void assertRefused(Response answer, String code, String message) {
        answer.then().statusCode(400);
        assertEquals(code + ";Sender", answer.header("x-amzn-query-error"), answer.asString());
        assertEquals(message, answer.jsonPath().getString("message"), answer.asString());
    }
}
