package io.pigeon.api.console;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.config.HttpClientConfig;
import io.restassured.config.RestAssuredConfig;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What the console makes of odd and large input, over plain HTTP (an outside attack found each): what it shows stays
 * within a few times what was stored, a form left as served is taken, a form the HTTP layer's decoder choked on is a
 * 400 page naming what is wrong, and nothing is done for it.
 */
@QuarkusTest
@TestProfile(ConsoleProfile.class)
class ConsoleInputsTest {

    private static final String TOKEN = "t".repeat(43);
    private final String project = ConsoleProfile.SHOWN;

    private static String newQueue(String project, String metadata) {
        String queue = "in-" + UUID.randomUUID().toString().substring(0, 8);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(metadata)
                .put("/v2/queues/" + queue)
                .then()
                .statusCode(201);
        return queue;
    }

    private static int storedMessages(String project, String queue) {
        return Api.as(project)
                .get("/v2/queues/" + queue + "/messages?echo=true&include_claimed=true&limit=20")
                .then()
                .extract()
                .jsonPath()
                .getList("messages")
                .size();
    }

    /** A form sent as its raw text, with the console's token in cookie and field (unless the text has its own). */
    private static Response form(String path, String raw) {
        return RestAssured.given()
                .config(RestAssuredConfig.config()
                        .httpClient(HttpClientConfig.httpClientConfig()
                                .setParam("http.socket.timeout", 20_000)
                                .setParam("http.connection.timeout", 5_000)))
                .cookie(ConsoleForms.COOKIE, TOKEN)
                .contentType("application/x-www-form-urlencoded")
                .body(raw)
                .redirects()
                .follow(false)
                .post(path);
    }

    @Test
    void deeplyNestedMetadataIsShownAtAboutItsStoredSize() {
        StringBuilder nested = new StringBuilder("1");
        for (int level = 0; level < 900; level++) {
            nested.insert(0, "{\"a\":").append('}');
        }
        StringBuilder metadata = new StringBuilder("{");
        for (int key = 0; key < 8; key++) {
            metadata.append(key == 0 ? "" : ",")
                    .append("\"k")
                    .append(key)
                    .append("\":")
                    .append(nested);
        }
        String stored = metadata.append('}').toString();
        String queue = newQueue(project, stored);
        String base = "/console/projects/" + project + "/queues/" + queue;
        for (String page : new String[] {base, base + "/metadata"}) {
            int size = RestAssured.get(page).then().statusCode(200).extract().asByteArray().length;
            // Indented, each of the 7,200 levels added a line of its depth's spaces: 20 MB for 60 KB stored.
            assertTrue(
                    size < 4 * stored.length() + 64 * 1024, page + " weighs " + size + " bytes for " + stored.length());
        }
    }

    @Test
    void aTestMessageWithItsTtlLeftEmptyTakesTheQueuesDefault() {
        String queue = newQueue(project, "{\"_default_message_ttl\": 777}");
        form(
                        "/console/projects/" + project + "/queues/" + queue + "/post",
                        "csrf=" + TOKEN + "&body=%7B%22n%22%3A+1%7D&ttl=&delay=")
                .then()
                .statusCode(303);
        Api.as(project)
                .get("/v2/queues/" + queue + "/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages", hasSize(1))
                .body("messages[0].ttl", equalTo(777))
                .body("messages[0].body.n", equalTo(1));
    }

    @Test
    void aLargeBodyIsPostedAndOnePastTheBoundIsRefusedNamingIt() {
        String queue = newQueue(project, "{}");
        String path = "/console/projects/" + project + "/queues/" + queue + "/post";
        // 200,000 bytes of body: the HTTP layer's form decoder refused any field over 2,048 bytes (413, then 500).
        form(path, "csrf=" + TOKEN + "&ttl=300&body=%22" + "a".repeat(200_000) + "%22")
                .then()
                .statusCode(303);
        form(path, "csrf=" + TOKEN + "&ttl=300&body=%22" + "a".repeat(300_000) + "%22")
                .then()
                .statusCode(400)
                .body(containsString("body"))
                .body(containsString("262144"));
        assertTrue(storedMessages(project, queue) == 1, "the refused body is not stored");
    }

    @Test
    void malformedFormsAreAnsweredWithA400PageNamingTheProblemAndDoNothing() {
        String queue = newQueue(project, "{}");
        String path = "/console/projects/" + project + "/queues/" + queue + "/post";
        // Each went unanswered (a malformed escape; 1,001 fields) or was a 500 before.
        form(path, "csrf=" + TOKEN + "&ttl=300&body=%ZZ")
                .then()
                .statusCode(400)
                .contentType(containsString("text/html"))
                .body(containsString("malformed escape"))
                .body(containsString("&quot;body&quot;"));
        form(path, "csrf=" + TOKEN + "&ttl=300&body=1" + "&x=1".repeat(1_000))
                .then()
                .statusCode(400)
                .body(containsString("more than 16 fields"));
        form(path, "csrf=" + TOKEN + "&ttl=300&body=1&body=2")
                .then()
                .statusCode(400)
                .body(containsString("more than once"));
        form("/console/projects/" + project + "/queues/" + queue + "/metadata", "csrf=" + TOKEN + "&metadata=%E0%A4")
                .then()
                .statusCode(400)
                .body(containsString("not UTF-8"));
        RestAssured.given()
                .cookie(ConsoleForms.COOKIE, TOKEN)
                .contentType("text/plain")
                .body("csrf=" + TOKEN + "&ttl=300&body=1")
                .post(path)
                .then()
                .statusCode(400)
                .contentType(containsString("text/html"))
                .body(containsString("application/x-www-form-urlencoded"));
        assertTrue(storedMessages(project, queue) == 0, "nothing posted");
        // Still refused without the token, whatever the form holds.
        RestAssured.given()
                .contentType("application/x-www-form-urlencoded")
                .body("ttl=300&body=1")
                .redirects()
                .follow(false)
                .post(path)
                .then()
                .statusCode(403);
    }

    @Test
    void metadataTheDatabaseRefusesIsShownOnTheFormNamingTheField() {
        String queue = newQueue(project, "{\"kept\": 1}");
        String path = "/console/projects/" + project + "/queues/" + queue + "/metadata";
        // A NUL character, and a number past what jsonb holds: the API's JSON error document came back instead.
        for (String metadata : new String[] {"%7B%22a%22%3A%22%5Cu0000%22%7D", "%7B%22a%22%3A1e999999999%7D"}) {
            form(path, "csrf=" + TOKEN + "&metadata=" + metadata)
                    .then()
                    .statusCode(400)
                    .contentType(containsString("text/html"))
                    .body(containsString("&quot;metadata&quot;"))
                    .body(containsString("be stored"))
                    .body(containsString("textarea"));
        }
        Api.as(project).get("/v2/queues/" + queue).then().statusCode(200).body("kept", equalTo(1));
    }

    @Test
    void aQueueIsCreatedAsTheApiCreatesItAndARefusalCreatesNothing() {
        String name = "made-" + UUID.randomUUID().toString().substring(0, 8);
        String path = "/console/projects/" + project + "/new-queue";
        form(path, "csrf=" + TOKEN + "&name=" + name + "&metadata=%7B%22_max_claim_count%22%3A+0%7D")
                .then()
                .statusCode(400)
                .body(containsString("_max_claim_count"));
        form(path, "csrf=" + TOKEN + "&name=bad%2Fname&metadata=")
                .then()
                .statusCode(400)
                .body(containsString("bad/name"));
        Api.as(project).get("/v1/queues/" + name).then().statusCode(404); // v1 answers whether it exists
        form(path, "csrf=" + TOKEN + "&name=" + name + "&metadata=%7B%22owner%22%3A%22a%22%7D")
                .then()
                .statusCode(303)
                .header("Location", containsString("/queues/" + name));
        Api.as(project).get("/v2/queues/" + name).then().statusCode(200).body("owner", equalTo("a"));
        form(path, "csrf=" + TOKEN + "&name=" + name + "&metadata=%7B%7D")
                .then()
                .statusCode(409)
                .body(containsString("already"));
        Api.as(project).get("/v2/queues/" + name).then().statusCode(200).body("owner", equalTo("a"));
        // Without the form's token nothing is created.
        RestAssured.given()
                .contentType("application/x-www-form-urlencoded")
                .body("name=" + name + "-x")
                .post(path)
                .then()
                .statusCode(403);
        Api.as(project).get("/v1/queues/" + name + "-x").then().statusCode(404);
    }

    @Test
    void aDeadLetterQueueNamesItsFirstSourcesAndCountsTheRest() {
        String dlq = "dlq-" + UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < 8; i++) {
            newQueue(project, "{\"_dead_letter_queue\": \"" + dlq + "\", \"_max_claim_count\": 3}");
        }
        newQueue(project, "{}");
        Api.as(project).put("/v2/queues/" + dlq).then().statusCode(201);
        String page = RestAssured.get("/console/projects/" + project + "?filter=" + dlq)
                .then()
                .statusCode(200)
                .extract()
                .asString();
        assertTrue(page.contains("and 3 more"), "the row counts the sources past the first 5");
    }

    @Test
    void theChooserLinksToProjectsWhoseIdsAUrlMustEncode() {
        String odd = ConsoleProfile.ODD;
        String href = "/console/projects/" + ConsoleViews.segment(odd);
        RestAssured.get("/console")
                .then()
                .statusCode(200)
                .body(containsString("href=\"" + href.replace("&", "&amp;") + "\""));
        // As the browser follows it: the path as written, not encoded again.
        RestAssured.given()
                .urlEncodingEnabled(false)
                .get(href)
                .then()
                .statusCode(200)
                .body(containsString(odd.replace("&", "&amp;")));
        RestAssured.get("/console/projects/" + odd.substring(0, odd.indexOf('&')))
                .then()
                .statusCode(403);
    }
}
