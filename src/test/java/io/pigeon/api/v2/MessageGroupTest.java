package io.pigeon.api.v2;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.nio.charset.StandardCharsets;
import org.hamcrest.Matcher;
import org.junit.jupiter.api.Test;

/**
 * A message's {@code group} on the Zaqar API (issue 43): accepted on posts within SQS's bound of MessageGroupId, shown
 * only where {@code ?include=group} asks for it, so that every other answer is Zaqar's; and the queue attribute
 * {@code _ordering}, shown only when set, refused outside its values.
 */
@QuarkusTest
class MessageGroupTest {

    private final String project = Api.newProject();

    private Response post(String queue, String document) {
        return Api.as(project).contentType(ContentType.JSON).body(document).post("/v2/queues/" + queue + "/messages");
    }

    @Test
    void theGroupIsStoredAndShownOnlyWhenAskedFor() {
        post("grouped", "{\"messages\": [{\"body\": 1, \"group\": \"order-42\"}, {\"body\": 2}]}")
                .then()
                .statusCode(201);
        String messages = "/v2/queues/grouped/messages";
        Api.as(project).get(messages + "?echo=true").then().statusCode(200).body("messages", everyItemLacks("group"));
        Api.as(project)
                .get(messages + "?echo=true&include=group")
                .then()
                .body("messages.group", contains("order-42", null))
                .body("messages[1]", not(hasKey("group")));
        Api.as(project)
                .get(messages + "?echo=true&include=claim_count,group")
                .then()
                .body("messages.group", contains("order-42", null))
                .body("messages.claim_count", contains(0, 0));

        Response claim = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/grouped/claims?limit=1&include=group");
        claim.then().statusCode(201).body("messages.group", contains("order-42"));
        String id = claim.jsonPath().getString("messages[0].id");
        Api.as(project).get(claim.header("Location")).then().body("messages", everyItemLacks("group"));
        Api.as(project)
                .get(claim.header("Location") + "?include=group")
                .then()
                .body("messages.group", contains("order-42"));
        Api.as(project).get(messages + "/" + id).then().body("$", not(hasKey("group")));
        Api.as(project).get(messages + "/" + id + "?include=group").then().body("group", equalTo("order-42"));
        Api.as(project)
                .get(messages + "?ids=" + id + "&include=group")
                .then()
                .body("messages.group", contains("order-42"));
        Api.as(project).delete(claim.header("Location")).then().statusCode(204);
        Api.as(project)
                .delete(messages + "?pop=2&include=group")
                .then()
                .statusCode(200)
                .body("messages.group", contains("order-42", null));
    }

    /** A listing's next link keeps {@code include} as given, so the next page shows what this one shows. */
    @Test
    void theNextLinkOfAListingKeepsWhatItIncludes() {
        post("paged", "{\"messages\": [{\"body\": 1, \"group\": \"g1\"}, {\"body\": 2, \"group\": \"g2\"}]}")
                .then()
                .statusCode(201);
        String messages = "/v2/queues/paged/messages";
        Response first = Api.as(project).get(messages + "?echo=true&limit=1&include=group");
        first.then().statusCode(200).body("messages.group", contains("g1"));
        String next = first.jsonPath().getString("links[0].href");
        assertThat(next, containsString("&include=group"));
        Api.as(project).get(next).then().statusCode(200).body("messages.group", contains("g2"));

        Response both = Api.as(project).get(messages + "?echo=true&limit=1&include=claim_count&include=group");
        String nextOfBoth = both.jsonPath().getString("links[0].href");
        assertThat(nextOfBoth, containsString("&include=claim_count&include=group"));
        Api.as(project).get(nextOfBoth).then().body("messages.group", contains("g2"));

        // Not asked for, not carried: the link is Zaqar's.
        Response plain = Api.as(project).get(messages + "?echo=true&limit=1");
        assertThat(plain.jsonPath().getString("links[0].href"), not(containsString("include")));
    }

    @Test
    void theNextPageOfAListingThatAskedForGroupsShowsThemToo() {
        post("paged", "{\"messages\": [{\"body\": 1, \"group\": \"g-1\"}, {\"body\": 2, \"group\": \"g-2\"}]}")
                .then()
                .statusCode(201);
        Response first = Api.as(project).get("/v2/queues/paged/messages?echo=true&limit=1&include=group");
        first.then().statusCode(200).body("messages.group", contains("g-1"));
        String next = first.jsonPath().getString("links[0].href");
        Api.as(project).get(next).then().statusCode(200).body("messages.group", contains("g-2"));

        Response plain = Api.as(project).get("/v2/queues/paged/messages?echo=true&limit=1");
        Api.as(project)
                .get(plain.jsonPath().getString("links[0].href"))
                .then()
                .body("messages", everyItemLacks("group"));
        Response counted = Api.as(project).get("/v1.1/queues/paged/messages?echo=true&limit=1&include=claim_count");
        Api.as(project)
                .get(counted.jsonPath().getString("links[0].href"))
                .then()
                .statusCode(200)
                .body("messages.claim_count", contains(0));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Matcher<Object> everyItemLacks(String key) {
        return (Matcher) everyItem(not(hasKey(key)));
    }

    @Test
    void aGroupOutOfSqsBoundsIsRefusedAndStoresNothing() {
        String tooLong = "g".repeat(129);
        for (String group : new String[] {"\"\"", "\"with space\"", "\"" + tooLong + "\"", "7", "\"caf\u00e9\""}) {
            post("bounded", "{\"messages\": [{\"body\": 1}, {\"body\": 2, \"group\": " + group + "}]}")
                    .then()
                    .statusCode(400)
                    .body("description", containsString("128"));
        }
        post("bounded", "{\"messages\": [{\"body\": 1, \"group\": \"" + "g".repeat(128) + "\"}]}")
                .then()
                .statusCode(201);
        post("bounded", "{\"messages\": [{\"body\": 1, \"group\": \"!#$%&'()*+,-./:;<=>?@[]^_`{|}~\"}]}")
                .then()
                .statusCode(201);
        Api.as(project).get("/v2/queues/bounded/stats").then().body("messages.total", equalTo(2));
    }

    @Test
    void orderingIsAReservedAttributeShownOnlyWhenSet() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/queues/plain")
                .then()
                .statusCode(201);
        Api.as(project).get("/v2/queues/plain").then().body("$", not(hasKey("_ordering")));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_ordering\": \"fifo\"}")
                .put("/v2/queues/ordered")
                .then()
                .statusCode(201);
        Api.as(project).get("/v2/queues/ordered").then().body("_ordering", equalTo("fifo"));
        for (String value : new String[] {"\"FIFO\"", "\"lifo\"", "1", "true"}) {
            Api.as(project)
                    .contentType("application/openstack-messaging-v2.0-json-patch")
                    .body(("[{\"op\": \"replace\", \"path\": \"/metadata/_ordering\", \"value\": " + value + "}]")
                            .getBytes(StandardCharsets.UTF_8))
                    .patch("/v2/queues/ordered")
                    .then()
                    .statusCode(400)
                    .body("description", containsString("_ordering"));
        }
        Api.as(project).get("/v2/queues/ordered").then().body("_ordering", equalTo("fifo"));
        Api.as(project)
                .contentType("application/openstack-messaging-v2.0-json-patch")
                .body("[{\"op\": \"replace\", \"path\": \"/metadata/_ordering\", \"value\": \"fair\"}]"
                        .getBytes(StandardCharsets.UTF_8))
                .patch("/v2/queues/plain")
                .then()
                .statusCode(200)
                .body("_ordering", equalTo("fair"));
        Api.as(project)
                .contentType("application/openstack-messaging-v2.0-json-patch")
                .body("[{\"op\": \"remove\", \"path\": \"/metadata/_ordering\"}]".getBytes(StandardCharsets.UTF_8))
                .patch("/v2/queues/plain")
                .then()
                .statusCode(200)
                .body("_ordering", nullValue());
    }
}
