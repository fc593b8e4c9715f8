package io.pigeon.api.v2;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Zaqar's pre-signed URLs: the share endpoint signs a grant, and the grant's headers authorise exactly it. */
@QuarkusTest
class V2ShareTest {

    private final String project = Api.newProject();
    private final String queue = "/v2/queues/shared";

    private JsonPath share(String document) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body(document)
                .post(queue + "/share")
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
    }

    /** A request that carries a grant's headers and nothing else of the project's (as the signed-url backend). */
    private static RequestSpecification signed(JsonPath grant) {
        return signed(grant, Map.of());
    }

    /** The grant's headers, some of them replaced by {@code changed}. */
    private static RequestSpecification signed(JsonPath grant, Map<String, String> changed) {
        Map<String, String> headers = new HashMap<>(Map.of(
                "X-Project-Id", grant.getString("project"),
                "URL-Signature", grant.getString("signature"),
                "URL-Expires", grant.getString("expires"),
                "URL-Methods", String.join(",", grant.getList("methods", String.class)),
                "URL-Paths", String.join(",", grant.getList("paths", String.class))));
        headers.putAll(changed);
        return given().header("Client-ID", Api.CLIENT_ID).headers(headers).accept(ContentType.JSON);
    }

    @Test
    void aDefaultShareGrantsReadingTheQueuesMessagesForADay() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": \"hi\"}]}")
                .post(queue + "/messages")
                .then()
                .statusCode(201);
        JsonPath grant = share("{}");
        assertTrue(grant.getList("paths").equals(List.of(queue + "/messages")), grant.prettify());
        assertTrue(grant.getList("methods").equals(List.of("GET")), grant.prettify());
        assertTrue(grant.getString("project").equals(project));
        assertTrue(grant.getString("signature").matches("[0-9a-f]{64}"));
        Instant expires = LocalDateTime.parse(grant.getString("expires")).toInstant(ZoneOffset.UTC);
        assertTrue(Duration.between(Instant.now(), expires).toMinutes() > 24 * 60 - 2, grant.getString("expires"));

        signed(grant).get(queue + "/messages?echo=true").then().statusCode(200).body("messages.body", contains("hi"));
        // Exactly the grant: another method, another resource of the queue, another queue are all 404.
        signed(grant)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": 1}]}")
                .post(queue + "/messages")
                .then()
                .statusCode(404);
        signed(grant).get(queue + "/stats").then().statusCode(404);
        signed(grant).get("/v2/queues/other/messages").then().statusCode(404);
        signed(grant, Map.of("X-Project-Id", Api.newProject()))
                .get(queue + "/messages")
                .then()
                .statusCode(404);
        signed(grant, Map.of("URL-Signature", "0".repeat(64)))
                .get(queue + "/messages")
                .then()
                .statusCode(404)
                .body("title", equalTo("404 Not Found"));
        signed(grant, Map.of("URL-Expires", "2099-01-01T00:00:00"))
                .get(queue + "/messages")
                .then()
                .statusCode(404);
        signed(grant, Map.of("URL-Methods", "GET,POST"))
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": 1}]}")
                .post(queue + "/messages")
                .then()
                .statusCode(404);
        signed(grant, Map.of("URL-Paths", "/v2/queues"))
                .get("/v2/queues")
                .then()
                .statusCode(404);
        // Spellings that are not the signed path do not match it.
        signed(grant).get("/v2/queues/shared/./messages").then().statusCode(404);
        // A grant always names its project: without X-Project-Id it grants nothing (not the default project).
        given().header("Client-ID", Api.CLIENT_ID)
                .header("URL-Signature", grant.getString("signature"))
                .header("URL-Expires", grant.getString("expires"))
                .header("URL-Methods", "GET")
                .header("URL-Paths", queue + "/messages")
                .get(queue + "/messages")
                .then()
                .statusCode(404);
        // The expiry is the signed text itself, not another spelling of the same time.
        String signedExpiry = grant.getString("expires");
        for (String spelled : List.of(
                signedExpiry + "Z", signedExpiry + ".000", signedExpiry.replace('T', ' '), signedExpiry + "+00:00")) {
            signed(grant, Map.of("URL-Expires", spelled))
                    .get(queue + "/messages")
                    .then()
                    .statusCode(404);
        }
    }

    @Test
    void aShareNamesItsPathsMethodsAndExpiry() {
        LocalDate inSixDays = LocalDate.now(ZoneOffset.UTC).plusDays(6);
        JsonPath grant = share("{\"paths\": [\"messages\", \"claims\"], \"methods\": [\"POST\", \"GET\"],"
                + " \"expires\": \"" + inSixDays + "T02:00:00+02:00\"}");
        assertTrue(grant.getList("paths").equals(List.of(queue + "/claims", queue + "/messages")), grant.prettify());
        assertTrue(grant.getList("methods").equals(List.of("GET", "POST")), grant.prettify());
        assertTrue(grant.getString("expires").equals(inSixDays + "T00:00:00"), grant.prettify());
        signed(grant)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": 1}, {\"body\": 2}]}")
                .post(queue + "/messages")
                .then()
                .statusCode(201);
        String claim = signed(grant)
                .contentType(ContentType.JSON)
                .body("{}")
                .post(queue + "/claims?limit=1")
                .then()
                .statusCode(201)
                .body("messages", hasSize(1))
                .extract()
                .header("Location");
        signed(grant).get(claim).then().statusCode(200);
        signed(grant).delete(claim).then().statusCode(404);
    }

    @Test
    void badSharesAreRefusedAsZaqarRefusesThem() {
        String path = queue + "/share";
        for (String[] refused : List.of(
                new String[] {"{\"foo\": 1}", "Unknown keys: {'foo'}"},
                new String[] {"{\"paths\": [\"messages\", \"queues\"]}", "Invalid paths: {'queues'}"},
                new String[] {"{\"methods\": \"GET\"}", "`methods` should be a list"},
                new String[] {
                    "{\"expires\": 1893456000}",
                    "`expires` should be date format, for example "
                            + "2016-01-01T00:00:00, not integer value: 1893456000"
                },
                new String[] {"{\"expires\": \"2001-01-01T00:00:00\"}", "`expires` is lower than the current time"},
                // Methods are HTTP methods: a text signed as a method cannot be presented as a path.
                new String[] {
                    "{\"methods\": [\"-\", \"/v2/queues/shared/subscriptions/1/confirm\\\\nPUT\"]}",
                    "Invalid methods: {'-', '/v2/queues/shared/subscriptions/1/confirm\\nPUT'}; `methods` are "
                            + "among {'DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT'}"
                },
                new String[] {
                    "{\"methods\": [\"get\"]}",
                    "Invalid methods: {'get'}; `methods` are among "
                            + "{'DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT'}"
                },
                new String[] {
                    "{\"expires\": \"2099-01-01T00:00:00\"}",
                    "`expires` must be at most 604800 seconds from now (pigeon.signed-url.max-lifetime)"
                })) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body(refused[0])
                    .post(path)
                    .then()
                    .statusCode(400)
                    .body("title", equalTo("Invalid API request"))
                    .body("description", equalTo(refused[1]));
        }
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("[]")
                .post(path)
                .then()
                .statusCode(400);
        Api.as(project)
                .contentType(ContentType.JSON)
                .post(path)
                .then()
                .statusCode(400)
                .body("description", matchesPattern(".*empty.*"));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/bad%20name/share")
                .then()
                .statusCode(400);
    }
}
