package io.pigeon.api.sqs;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.parsing.Parser;
import io.restassured.path.json.JsonPath;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The SQS queue actions over the queues Zaqar's API serves: creation's idempotence, attributes on the reserved
 * attributes (and what Zaqar shows of them), counts from the queue's statistics, listings and their pages, tags, purge
 * and delete; and that no spelling of a queue URL reaches another project's queue. Bad input is AWS's error and changes
 * nothing.
 */
@QuarkusTest
class SqsQueueActionsTest {

    private final String project = Api.newProject();
    private final SqsClient sqs = new SqsClient(project);

    private JsonPath json(String action, String body, int status) {
        return sqs.json(action, body)
                .then()
                .parser(SqsClient.JSON_TYPE, Parser.JSON)
                .statusCode(status)
                .extract()
                .jsonPath();
    }

    private String errorCode(String action, String body) {
        return sqs.json(action, body).then().statusCode(400).extract().header("x-amzn-query-error");
    }

    private Map<String, String> attributes(String url) {
        return json("GetQueueAttributes", "{\"QueueUrl\": \"" + url + "\", \"AttributeNames\": [\"All\"]}", 200)
                .getMap("Attributes");
    }

    @Test
    void theSameAttributesGiveTheSameQueueOthersAreQueueAlreadyExists() {
        String body = "{\"QueueName\": \"same\", \"Attributes\": {\"VisibilityTimeout\": \"45\"}}";
        String url = json("CreateQueue", body, 200).getString("QueueUrl");
        assertEquals(url, json("CreateQueue", body, 200).getString("QueueUrl"));
        assertEquals(url, json("CreateQueue", "{\"QueueName\": \"same\"}", 200).getString("QueueUrl"));
        sqs.json("CreateQueue", "{\"QueueName\": \"same\", \"Attributes\": {\"VisibilityTimeout\": \"46\"}}")
                .then()
                .statusCode(400)
                .header("x-amzn-query-error", "QueueAlreadyExists;Sender")
                .parser(SqsClient.JSON_TYPE, Parser.JSON)
                .body("__type", equalTo("com.amazonaws.sqs#QueueNameExists"));
        assertEquals("45", attributes(url).get("VisibilityTimeout"));
    }

    @Test
    void fifoNamesWithoutFifoQueueAndBadNamesAreRefusedAndNothingIsCreated() {
        // A .fifo name needs FifoQueue=true and FifoQueue=true needs a .fifo name (AWS: InvalidParameterValue).
        assertEquals("InvalidParameterValue;Sender", errorCode("CreateQueue", "{\"QueueName\": \"jobs.fifo\"}"));
        assertEquals(
                "InvalidParameterValue;Sender",
                errorCode("CreateQueue", "{\"QueueName\": \"jobs\", \"Attributes\": {\"FifoQueue\": \"true\"}}"));
        assertEquals(
                "InvalidParameterValue;Sender",
                errorCode("CreateQueue", "{\"QueueName\": \"jobs.fifo\", \"Attributes\": {\"FifoQueue\": \"false\"}}"));
        assertEquals(
                "InvalidParameterValue;Sender",
                errorCode(
                        "CreateQueue",
                        "{\"QueueName\": \"" + "x".repeat(76) + ".fifo\", \"Attributes\": {\"FifoQueue\": \"true\"}}"));
        // FIFO attributes on a standard queue are unknown to it (AWS: InvalidAttributeName).
        assertEquals(
                "InvalidAttributeName;Sender",
                errorCode(
                        "CreateQueue",
                        "{\"QueueName\": \"jobs\", \"Attributes\": {\"ContentBasedDeduplication\": \"true\"}}"));
        assertEquals(
                "InvalidParameterValue;Sender",
                errorCode("CreateQueue", "{\"QueueName\": \"" + "x".repeat(81) + "\"}"));
        assertEquals("InvalidParameterValue;Sender", errorCode("CreateQueue", "{\"QueueName\": \"a b\"}"));
        assertEquals(List.of(), json("ListQueues", "{}", 200).getList("QueueUrls"));
    }

    @Test
    void aNameZaqarCannotSpellIsListedThroughZaqarButNotAddressed() {
        String name = "n".repeat(80);
        sqs.create(name);
        Api.as(project).get("/v2/queues").then().statusCode(200).body("queues.name", hasItem(name));
        Api.as(project).get("/v2/queues/" + name + "/stats").then().statusCode(400);
    }

    @Test
    void attributesAreZaqarsReservedOnesWithSqsBounds() {
        String url = sqs.create("tuned");
        Map<String, String> before = attributes(url);
        assertEquals("30", before.get("VisibilityTimeout"));
        assertEquals("345600", before.get("MessageRetentionPeriod"));
        assertTrue(before.get("QueueArn").matches("arn:aws:sqs:us-east-1:[0-9]{12}:tuned"), before.toString());
        json(
                "SetQueueAttributes",
                "{\"QueueUrl\": \"" + url + "\", \"Attributes\": {\"VisibilityTimeout\": \"120\", \"DelaySeconds\":"
                        + " \"5\", \"MessageRetentionPeriod\": \"600\", \"ReceiveMessageWaitTimeSeconds\": \"10\","
                        + " \"MaximumMessageSize\": \"2048\"}}",
                200);
        Map<String, String> after = attributes(url);
        assertEquals("120", after.get("VisibilityTimeout"));
        assertEquals("5", after.get("DelaySeconds"));
        assertEquals("600", after.get("MessageRetentionPeriod"));
        assertEquals("10", after.get("ReceiveMessageWaitTimeSeconds"));
        assertEquals("2048", after.get("MaximumMessageSize"));
        assertTrue(Long.parseLong(after.get("LastModifiedTimestamp")) >= Long.parseLong(after.get("CreatedTimestamp")));
        Api.as(project)
                .get("/v2/queues/tuned")
                .then()
                .statusCode(200)
                .body("_default_message_delay", equalTo(5))
                .body("_default_message_ttl", equalTo(600))
                .body("_claim_wait_seconds", equalTo(10))
                .body("_max_messages_post_size", equalTo(2048))
                .body("_sqs_visibility_timeout", equalTo(120));

        for (String refused : List.of(
                "\"VisibilityTimeout\": \"43201\"",
                "\"DelaySeconds\": \"901\"",
                "\"MaximumMessageSize\": \"1023\"",
                "\"MessageRetentionPeriod\": \"59\"",
                "\"ReceiveMessageWaitTimeSeconds\": \"21\"",
                "\"DelaySeconds\": \"-1\"",
                "\"DelaySeconds\": \"1\", \"VisibilityTimeout\": \"x\"")) {
            assertEquals(
                    "InvalidAttributeValue;Sender",
                    errorCode(
                            "SetQueueAttributes", "{\"QueueUrl\": \"" + url + "\", \"Attributes\": {" + refused + "}}"),
                    refused);
        }
        assertEquals(
                "InvalidAttributeName;Sender",
                errorCode("SetQueueAttributes", "{\"QueueUrl\": \"" + url + "\", \"Attributes\": {\"Color\": \"1\"}}"));
        assertEquals(
                "InvalidAttributeName;Sender",
                errorCode(
                        "SetQueueAttributes", "{\"QueueUrl\": \"" + url + "\", \"Attributes\": {\"Policy\": \"{}\"}}"));
        assertEquals(
                "InvalidAttributeName;Sender",
                errorCode("GetQueueAttributes", "{\"QueueUrl\": \"" + url + "\", \"AttributeNames\": [\"Color\"]}"));
        Map<String, String> unchanged = attributes(url);
        unchanged.remove("LastModifiedTimestamp");
        after.remove("LastModifiedTimestamp");
        assertEquals(after, unchanged);
        assertEquals(
                Map.of("DelaySeconds", "5"),
                json(
                                "GetQueueAttributes",
                                "{\"QueueUrl\": \"" + url + "\", \"AttributeNames\": [\"DelaySeconds\", \"Policy\"]}",
                                200)
                        .getMap("Attributes"));
    }

    @Test
    void aRedrivePolicyIsZaqarsDeadLetterQueueAndListsItsSources() {
        String dlq = sqs.create("dead");
        String source = sqs.create("living");
        String arn = attributes(dlq).get("QueueArn");
        assertEquals(
                "InvalidAttributeValue;Sender",
                errorCode(
                        "SetQueueAttributes",
                        "{\"QueueUrl\": \"" + source
                                + "\", \"Attributes\": {\"RedrivePolicy\": \"{\\\"deadLetterTargetArn\\\":" + "\\\""
                                + arn.replace("dead", "gone") + "\\\",\\\"maxReceiveCount\\\":3}\"}}"));
        assertEquals(
                "InvalidAttributeValue;Sender",
                errorCode(
                        "SetQueueAttributes",
                        "{\"QueueUrl\": \"" + source
                                + "\", \"Attributes\": {\"RedrivePolicy\": \"{\\\"deadLetterTargetArn\\\":" + "\\\""
                                + arn + "\\\",\\\"maxReceiveCount\\\":1001}\"}}"));
        json(
                "SetQueueAttributes",
                "{\"QueueUrl\": \"" + source + "\", \"Attributes\": {\"RedrivePolicy\": \"{\\\"deadLetterTargetArn\\\":"
                        + "\\\"" + arn + "\\\",\\\"maxReceiveCount\\\":\\\"3\\\"}\"}}",
                200);
        assertEquals(
                "{\"deadLetterTargetArn\":\"" + arn + "\",\"maxReceiveCount\":3}",
                attributes(source).get("RedrivePolicy"));
        Api.as(project)
                .get("/v2/queues/living")
                .then()
                .body("_dead_letter_queue", equalTo("dead"))
                .body("_max_claim_count", equalTo(3));
        assertEquals(
                List.of(source),
                json("ListDeadLetterSourceQueues", "{\"QueueUrl\": \"" + dlq + "\"}", 200)
                        .getList("queueUrls"));
        json(
                "SetQueueAttributes",
                "{\"QueueUrl\": \"" + source + "\", \"Attributes\": {\"RedrivePolicy\": \"\"}}",
                200);
        assertTrue(!attributes(source).containsKey("RedrivePolicy"));
        assertEquals(
                List.of(),
                json("ListDeadLetterSourceQueues", "{\"QueueUrl\": \"" + dlq + "\"}", 200)
                        .getList("queueUrls"));
    }

    @Test
    void approximateCountsComeFromTheQueuesStatistics() {
        String url = sqs.create("counted");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": 1}, {\"ttl\": 300, \"body\": 2},"
                        + " {\"ttl\": 300, \"body\": 3}, {\"ttl\": 300, \"delay\": 300, \"body\": 4}]}")
                .post("/v2/queues/counted/messages")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/counted/claims?limit=1")
                .then()
                .statusCode(201);
        Map<String, String> counts = attributes(url);
        assertEquals("2", counts.get("ApproximateNumberOfMessages"));
        assertEquals("1", counts.get("ApproximateNumberOfMessagesNotVisible"));
        assertEquals("1", counts.get("ApproximateNumberOfMessagesDelayed"));

        json("PurgeQueue", "{\"QueueUrl\": \"" + url + "\"}", 200);
        assertEquals("0", attributes(url).get("ApproximateNumberOfMessages"));
        json("DeleteQueue", "{\"QueueUrl\": \"" + url + "\"}", 200);
        assertEquals(
                "AWS.SimpleQueueService.NonExistentQueue;Sender",
                errorCode("GetQueueUrl", "{\"QueueName\": \"counted\"}"));
        assertEquals(
                "AWS.SimpleQueueService.NonExistentQueue;Sender",
                errorCode("DeleteQueue", "{\"QueueUrl\": \"" + url + "\"}"));
        Api.as(project).get("/v2/queues").then().statusCode(200).body("queues.name", not(hasItem("counted")));
    }

    @Test
    void listQueuesFiltersByPrefixAndPagesByToken() {
        for (String name : List.of("a1", "a2", "a3", "b1")) {
            sqs.create(name);
        }
        JsonPath first = json("ListQueues", "{\"QueueNamePrefix\": \"a\", \"MaxResults\": 2}", 200);
        List<String> urls = first.getList("QueueUrls");
        assertEquals(2, urls.size());
        assertTrue(urls.get(0).endsWith("/a1") && urls.get(1).endsWith("/a2"), urls.toString());
        JsonPath second = json(
                "ListQueues",
                "{\"QueueNamePrefix\": \"a\", \"MaxResults\": 2, \"NextToken\": \"" + first.getString("NextToken")
                        + "\"}",
                200);
        assertEquals(1, second.getList("QueueUrls").size());
        assertTrue(second.getString("QueueUrls[0]").endsWith("/a3"));
        assertEquals(null, second.getString("NextToken"));
        assertEquals(4, json("ListQueues", "{}", 200).getList("QueueUrls").size());
        assertEquals("InvalidParameterValue;Sender", errorCode("ListQueues", "{\"MaxResults\": 0}"));
        assertEquals("InvalidParameterValue;Sender", errorCode("ListQueues", "{\"MaxResults\": 1001}"));
        assertEquals("InvalidParameterValue;Sender", errorCode("ListQueues", "{\"NextToken\": \"!!\"}"));
    }

    @Test
    void tagsAreBoundedAsSqs() {
        String url = sqs.create("tagged");
        json("TagQueue", "{\"QueueUrl\": \"" + url + "\", \"Tags\": {\"team\": \"a\", \"env\": \"dev\"}}", 200);
        json("UntagQueue", "{\"QueueUrl\": \"" + url + "\", \"TagKeys\": [\"env\"]}", 200);
        assertEquals(
                Map.of("team", "a"),
                json("ListQueueTags", "{\"QueueUrl\": \"" + url + "\"}", 200).getMap("Tags"));
        StringBuilder many = new StringBuilder("{");
        for (int i = 0; i < 50; i++) {
            many.append(i == 0 ? "" : ",").append("\"k").append(i).append("\": \"v\"");
        }
        many.append('}');
        assertEquals(
                "InvalidParameterValue;Sender",
                errorCode("TagQueue", "{\"QueueUrl\": \"" + url + "\", \"Tags\": " + many + "}"));
        assertEquals(
                "InvalidParameterValue;Sender",
                errorCode("TagQueue", "{\"QueueUrl\": \"" + url + "\", \"Tags\": {\"aws:x\": \"v\"}}"));
        assertEquals(
                "InvalidParameterValue;Sender",
                errorCode(
                        "TagQueue", "{\"QueueUrl\": \"" + url + "\", \"Tags\": {\"" + "k".repeat(129) + "\": \"v\"}}"));
        assertEquals(
                Map.of("team", "a"),
                json("ListQueueTags", "{\"QueueUrl\": \"" + url + "\"}", 200).getMap("Tags"));
    }

    /**
     * AWS's tag rules: Unicode letters, digits, spaces and {@code _ . : / = + - @} only, lengths in Unicode characters,
     * {@code aws:} reserved in keys and values in any case; a refused tag (in TagQueue or CreateQueue) changes nothing.
     */
    @Test
    void tagsHoldOnlyTheCharactersAwsAllows() {
        String url = sqs.create("tag-chars");
        String astral = "\uD835\uDC9C"; // MATHEMATICAL SCRIPT CAPITAL A: a letter of two UTF-16 units
        Map<String, String> good =
                Map.of("caf\u00e9 team", "a_b.c:d/e=f+g-h@i", astral.repeat(128), "x".repeat(256), "k", "");
        StringBuilder tags = new StringBuilder("{");
        good.forEach((k, v) -> tags.append(tags.length() > 1 ? "," : "")
                .append('"')
                .append(k)
                .append("\":\"")
                .append(v)
                .append('"'));
        tags.append('}');
        json("TagQueue", "{\"QueueUrl\": \"" + url + "\", \"Tags\": " + tags + "}", 200);
        for (String bad : List.of(
                "{\"a<b\": \"v\"}",
                "{\"a#b\": \"v\"}",
                "{\"k\": \"v;rm\"}",
                "{\"k\": \"\\u0001\"}",
                "{\"k\": \"smile \uD83D\uDE00\"}",
                "{\"AWS:k\": \"v\"}",
                "{\"Aws:k\": \"v\"}",
                "{\"k\": \"aws:v\"}",
                "{\"" + astral.repeat(129) + "\": \"v\"}",
                "{\"k\": \"" + "x".repeat(257) + "\"}")) {
            assertEquals(
                    "InvalidParameterValue;Sender",
                    errorCode("TagQueue", "{\"QueueUrl\": \"" + url + "\", \"Tags\": " + bad + "}"),
                    bad);
            assertEquals(
                    "InvalidParameterValue;Sender",
                    errorCode("CreateQueue", "{\"QueueName\": \"tag-chars-new\", \"tags\": " + bad + "}"),
                    bad);
        }
        assertEquals(
                good,
                json("ListQueueTags", "{\"QueueUrl\": \"" + url + "\"}", 200).getMap("Tags"));
        assertEquals(
                "AWS.SimpleQueueService.NonExistentQueue;Sender",
                errorCode("GetQueueUrl", "{\"QueueName\": \"tag-chars-new\"}"));
    }

    @Test
    void noSpellingOfAQueueUrlReachesAnotherProjectsQueue() {
        SqsClient other = new SqsClient(Api.newProject());
        String theirs = other.create("secret");
        String mine = sqs.create("secret");
        String account = mine.split("/")[3];
        String origin = mine.substring(0, mine.indexOf("/" + account));
        Api.as(other.project())
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": \"theirs\"}]}")
                .post("/v2/queues/secret/messages")
                .then()
                .statusCode(201);
        List<String> spellings = List.of(
                theirs,
                origin + "/" + account + "/../" + theirs.split("/")[3] + "/secret",
                origin + "/" + theirs.split("/")[3] + "/secret/",
                origin + "//" + theirs.split("/")[3] + "/secret",
                origin + "/" + theirs.split("/")[3] + "/%73ecret",
                origin + "/" + account + "/%2e%2e/" + theirs.split("/")[3] + "/secret",
                origin + "/" + account + "/secret/../../" + theirs.split("/")[3] + "/secret",
                origin + "/" + account + "//secret",
                origin + "/" + account + "/secret?x=1");
        for (String url : spellings) {
            for (String action : List.of("GetQueueAttributes", "PurgeQueue", "DeleteQueue", "ListQueueTags")) {
                assertEquals(
                        "AWS.SimpleQueueService.NonExistentQueue;Sender",
                        errorCode(action, "{\"QueueUrl\": \"" + url + "\", \"AttributeNames\": [\"All\"]}"),
                        action + " " + url);
            }
            if (!url.contains("?")) { // as a path, "?x=1" is a query string: the path names my own queue
                sqs.queryAt(url.substring(origin.length()), "GetQueueAttributes", "AttributeName.1", "All")
                        .then()
                        .statusCode(not(equalTo(200)));
            }
        }
        assertEquals(
                "AWS.SimpleQueueService.NonExistentQueue;Sender",
                errorCode(
                        "GetQueueUrl",
                        "{\"QueueName\": \"secret\", \"QueueOwnerAWSAccountId\": \"" + theirs.split("/")[3] + "\"}"));
        // A bare queue name names the caller's own queue (AWS takes one, as a test of moto's verified against AWS
        // shows): mine, empty, never theirs.
        assertEquals(
                "0",
                json(
                                "GetQueueAttributes",
                                "{\"QueueUrl\": \"secret\", \"AttributeNames\": [\"ApproximateNumberOfMessages\"]}",
                                200)
                        .getString("Attributes.ApproximateNumberOfMessages"));
        sqs.json("GetQueueAttributes", "{\"QueueUrl\": \"secret/x\"}")
                .then()
                .statusCode(400) // JSON 1.0: 400, as the SDKs' JSON model declares; the query protocol's is 404
                .header("x-amzn-query-error", "InvalidAddress;Sender");
        Api.as(other.project()).get("/v2/queues/secret/stats").then().body("messages.free", equalTo(1));
        Api.as(other.project()).get("/v2/queues/secret").then().statusCode(200);
    }

    @Test
    void theQueryProtocolReadsIndexedMembersAndMayPostToTheQueueUrl() {
        String url = sqs.create("indexed");
        String path = url.substring(url.indexOf('/', "http://".length()));
        sqs.queryAt(path, "SetQueueAttributes", "Attribute.1.Name", "DelaySeconds", "Attribute.1.Value", "7")
                .then()
                .statusCode(200)
                .body(containsString("<SetQueueAttributesResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">"
                        + "<ResponseMetadata><RequestId>"));
        String xml = sqs.query("GetQueueAttributes", "QueueUrl", url, "AttributeName.1", "DelaySeconds")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        assertTrue(
                xml.contains("<GetQueueAttributesResult><Attribute><Name>DelaySeconds</Name><Value>7</Value>"
                        + "</Attribute></GetQueueAttributesResult>"),
                xml);
        String listed = sqs.query("ListQueues", "QueueNamePrefix", "index")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        assertTrue(listed.contains("<ListQueuesResult><QueueUrl>" + url + "</QueueUrl></ListQueuesResult>"), listed);
        String tags = sqs.query("TagQueue", "QueueUrl", url, "Tag.1.Key", "k", "Tag.1.Value", "v")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        assertTrue(tags.contains("<TagQueueResponse"), tags);
        assertTrue(sqs.query("ListQueueTags", "QueueUrl", url)
                .then()
                .extract()
                .asString()
                .contains("<Tag><Key>k</Key><Value>v</Value></Tag>"));
        given().get("/").then().statusCode(300).body("versions", not(nullValue()));
        assertTrue(url.matches("http://localhost:[0-9]+/[0-9]{12}/indexed"), url);
    }

    @Test
    void aQueueMadeThroughZaqarShowsItsReservedAttributesThroughSqs() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/queues/zaqar-dlq")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_default_message_ttl\": 120, \"_default_message_delay\": 4, \"_dead_letter_queue\":"
                        + " \"zaqar-dlq\", \"_max_claim_count\": 7}")
                .put("/v2/queues/zaqar-made")
                .then()
                .statusCode(201);
        String url = json("GetQueueUrl", "{\"QueueName\": \"zaqar-made\"}", 200).getString("QueueUrl");
        Map<String, String> shown = attributes(url);
        assertEquals("120", shown.get("MessageRetentionPeriod"));
        assertEquals("4", shown.get("DelaySeconds"));
        assertEquals("30", shown.get("VisibilityTimeout"));
        assertEquals(
                "{\"deadLetterTargetArn\":\"" + shown.get("QueueArn").replace("zaqar-made", "zaqar-dlq")
                        + "\",\"maxReceiveCount\":7}",
                shown.get("RedrivePolicy"));
        assertEquals(shown.get("CreatedTimestamp"), shown.get("LastModifiedTimestamp"));
        Api.as(project)
                .contentType("application/openstack-messaging-v2.0-json-patch")
                .body("[{\"op\": \"replace\", \"path\": \"/metadata/_default_message_delay\", \"value\": 6}]"
                        .getBytes(StandardCharsets.UTF_8))
                .patch("/v2/queues/zaqar-made")
                .then()
                .statusCode(200);
        assertEquals("6", attributes(url).get("DelaySeconds"));
    }
}
