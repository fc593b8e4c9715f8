package io.pigeon.api.v2;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code claim_count} in message documents: how many claims have taken the message, the current one included. Always
 * in v2 (claims, get, get by ids, list, pop, with a pop's {@code claim_id}); in v1.1 only with
 * {@code ?include=claim_count}; never in v1.
 */
@QuarkusTest
class ClaimCountTest {

    private static final String UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

    private final String project = Api.newProject();

    private void post(String version, String queue, String document) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(document)
                .post("/" + version + "/queues/" + queue + "/messages")
                .then()
                .statusCode(201);
    }

    private Response claim(String version, String queue, String query) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/" + version + "/queues/" + queue + "/claims" + query);
    }

    @Test
    void v2CountsTheCurrentClaimEverywhere() {
        post("v2", "counted", "{\"messages\": [{\"ttl\": 300, \"body\": 0}, {\"ttl\": 300, \"body\": 1}]}");
        String messages = "/v2/queues/counted/messages";
        Api.as(project)
                .get(messages + "?echo=true")
                .then()
                .body("messages.claim_count", contains(0, 0))
                .body("messages[0]", not(hasKey("claim_id")));

        Response first = claim("v2", "counted", "?limit=1");
        first.then().statusCode(201).body("messages.claim_count", contains(1));
        String id = first.jsonPath().getString("messages[0].id");
        Api.as(project).get(first.header("Location")).then().body("messages.claim_count", contains(1));
        Api.as(project).get(messages + "/" + id).then().statusCode(200).body("claim_count", equalTo(1));
        Api.as(project)
                .get(messages + "?echo=true&include_claimed=true")
                .then()
                .body("messages.claim_count", contains(1, 0));
        Api.as(project).get(messages + "?ids=" + id).then().body("messages.claim_count", contains(1));

        // Released and claimed again: the second claim counts 2.
        Api.as(project).delete(first.header("Location")).then().statusCode(204);
        Api.as(project).get(messages + "/" + id).then().body("claim_count", equalTo(1));
        Response second = claim("v2", "counted", "?limit=1");
        second.then().body("messages.id", contains(id)).body("messages.claim_count", contains(2));
        Api.as(project).delete(second.header("Location")).then().statusCode(204);

        // A pop counts as the claim that takes the message, and names it, as Zaqar's pops do.
        Api.as(project)
                .delete(messages + "?pop=2")
                .then()
                .statusCode(200)
                .body("messages.claim_count", contains(3, 1))
                .body("messages.claim_id", everyItem(matchesPattern(UUID)));
    }

    @Test
    void v2PopNamesOneClaimForAllItTook() {
        post("v2", "popped", "{\"messages\": [{\"ttl\": 300, \"body\": 0}, {\"ttl\": 300, \"body\": 1}]}");
        Response popped = Api.as(project).delete("/v2/queues/popped/messages?pop=2");
        popped.then().statusCode(200).body("messages.claim_count", contains(1, 1));
        List<String> claims = popped.jsonPath().getList("messages.claim_id", String.class);
        assertEquals(claims.get(0), claims.get(1));
    }

    /**
     * gophercloud's {@code messages.PopMessage} as Go's encoding/json reads it: {@code body} an object, {@code age},
     * {@code ttl} and {@code claim_count} integers (a fraction or a string fails), {@code id} and {@code claim_id}
     * strings; other keys are ignored.
     */
    record GophercloudPopMessage(
            Map<String, Object> body, int age, String id, int ttl, int claim_count, String claim_id) {}

    @Test
    void v2PopAnswersReadAsGophercloudsPopMessages() throws Exception {
        post("v2", "gopher", "{\"messages\": [{\"ttl\": 300, \"body\": {\"n\": 1}}, {\"ttl\": 60, \"body\": {}}]}");
        String answer = Api.as(project)
                .delete("/v2/queues/gopher/messages?pop=2")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        ObjectMapper go = new ObjectMapper()
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
                .configure(DeserializationFeature.ACCEPT_FLOAT_AS_INT, false)
                .configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
        List<GophercloudPopMessage> popped = go.convertValue(
                go.readTree(answer).path("messages"), new TypeReference<List<GophercloudPopMessage>>() {});
        assertEquals(2, popped.size());
        for (GophercloudPopMessage message : popped) {
            assertEquals(1, message.claim_count());
            assertEquals(popped.get(0).claim_id(), message.claim_id());
            assertTrue(message.claim_id().matches("[0-9a-f-]{36}"), message.claim_id());
            assertTrue(message.id() != null && !message.id().isEmpty());
        }
        assertEquals(Map.of("n", 1), popped.get(0).body());
        assertEquals(300, popped.get(0).ttl());
    }

    @Test
    void v11ShowsTheCountOnlyWhenAsked() {
        post(
                "v1.1",
                "old",
                "{\"messages\": [{\"ttl\": 300, \"body\": 0}, {\"ttl\": 300, \"body\": 1}, "
                        + "{\"ttl\": 300, \"body\": 2}]}");
        String messages = "/v1.1/queues/old/messages";
        Response plain = claim("v1.1", "old", "?limit=1");
        plain.then().statusCode(201).body("messages[0]", not(hasKey("claim_count")));
        String id = plain.jsonPath().getString("messages[0].id");
        Api.as(project).get(plain.header("Location")).then().body("messages[0]", not(hasKey("claim_count")));
        Api.as(project).get(messages + "/" + id).then().statusCode(200).body("$", not(hasKey("claim_count")));
        Api.as(project)
                .get(messages + "?echo=true&include_claimed=true")
                .then()
                .body("messages", hasSize(3))
                .body("messages[0]", not(hasKey("claim_count")));
        Api.as(project).get(messages + "?ids=" + id).then().body("messages[0]", not(hasKey("claim_count")));

        String include = "include=claim_count";
        Api.as(project).get(plain.header("Location") + "?" + include).then().body("messages.claim_count", contains(1));
        Api.as(project).get(messages + "/" + id + "?" + include).then().body("claim_count", equalTo(1));
        Api.as(project)
                .get(messages + "?echo=true&include_claimed=true&" + include)
                .then()
                .body("messages.claim_count", contains(1, 0, 0));
        // Comma-separated or repeated, among values this server does not know.
        Api.as(project)
                .get(messages + "?ids=" + id + "&include=other,claim_count")
                .then()
                .body("messages.claim_count", contains(1));
        Api.as(project)
                .get(messages + "?ids=" + id + "&include=other&include=claim_count")
                .then()
                .body("messages.claim_count", contains(1));
        claim("v1.1", "old", "?limit=1&" + include).then().statusCode(201).body("messages.claim_count", contains(1));

        Api.as(project)
                .delete(messages + "?pop=1")
                .then()
                .statusCode(200)
                .body("messages[0]", not(hasKey("claim_count")))
                .body("messages[0]", not(hasKey("claim_id")));
        Api.as(project)
                .delete(messages + "?pop=1&" + include)
                .then()
                .statusCode(200)
                .body("messages", hasSize(0));
    }

    @Test
    void v11PopShowsTheCountWhenAsked() {
        post("v1.1", "pops", "{\"messages\": [{\"ttl\": 300, \"body\": 0}]}");
        Api.as(project)
                .delete("/v1.1/queues/pops/messages?pop=1&include=claim_count")
                .then()
                .statusCode(200)
                .body("messages.claim_count", contains(1))
                .body("messages.claim_id", everyItem(matchesPattern(UUID)));
    }

    @Test
    void v1IsUnchanged() {
        Api.as(project).put("/v1/queues/legacy").then().statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[{\"ttl\": 300, \"body\": 0}]")
                .post("/v1/queues/legacy/messages")
                .then()
                .statusCode(201);
        Response claimed = claim("v1", "legacy", "?include=claim_count");
        claimed.then().statusCode(201).body("[0]", not(hasKey("claim_count")));
        String href = claimed.jsonPath().getString("[0].href");
        Api.as(project)
                .get(href.substring(0, href.indexOf('?')) + "?include=claim_count")
                .then()
                .statusCode(200)
                .body("$", not(hasKey("claim_count")));
        Api.as(project)
                .get(claimed.header("Location") + "?include=claim_count")
                .then()
                .body("messages[0]", not(hasKey("claim_count")));
        Api.as(project)
                .get("/v1/queues/legacy/messages?echo=true&include_claimed=true&include=claim_count")
                .then()
                .body("messages[0]", not(hasKey("claim_count")));
    }
}
