package io.pigeon.api.v1;

import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.emptyString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.maintenance.Sweeper;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@QuarkusTest
class V1ClaimTest {

    @Inject
    Pool pool;

    @Inject
    Sweeper sweeper;

    private final String project = Api.newProject();
    private final String q = "claims-queue";
    private final String claims = "/v1/queues/" + q + "/claims";

    @BeforeEach
    void createQueue() {
        Api.as(project).put("/v1/queues/" + q).then().statusCode(201);
    }

    private Response claim(String query, String document) {
        return Api.as(project).contentType(ContentType.JSON).body(document).post(claims + query);
    }

    /** Moves a claim's end into the past, as the database clock would after its TTL. */
    private void endClaim(String claimId) {
        Db.run(
                pool,
                "UPDATE claims SET expires_at = now() - interval '1 second' WHERE id = $1",
                UUID.fromString(claimId));
        Db.run(
                pool,
                "UPDATE messages SET claim_expires_at = now() - interval '1 second' WHERE claim_id = $1",
                UUID.fromString(claimId));
    }

    @Test
    void claimTakesTheOldestFreeMessages() {
        List<String> hrefs = Messages.post(project, q, 4, 300);
        Response claimed = claim("?limit=2", "{\"ttl\": 300, \"grace\": 60}");
        claimed.then()
                .statusCode(201)
                .contentType("application/json")
                .header("Location", matchesPattern(claims + "/[0-9a-f-]{36}"))
                .body("$", hasSize(2))
                .body("body.n", contains(0, 1))
                .body("age", everyItem(lessThanOrEqualTo(5)))
                .body("ttl", everyItem(greaterThanOrEqualTo(300)));
        String claimId = claimed.header("Location").substring(claims.length() + 1);
        assertEquals(hrefs.get(0) + "?claim_id=" + claimId, claimed.jsonPath().getString("[0].href"));
        assertEquals(hrefs.get(1) + "?claim_id=" + claimId, claimed.jsonPath().getString("[1].href"));

        Response rest = claim("?limit=10", "{\"ttl\": 60, \"grace\": 60}");
        rest.then().statusCode(201).body("body.n", contains(2, 3));
        claim("", "{\"ttl\": 60, \"grace\": 60}").then().statusCode(204).body(emptyString());

        Api.as(project)
                .get("/v1/queues/" + q + "/stats")
                .then()
                .body("messages.claimed", equalTo(4))
                .body("messages.free", equalTo(0));
    }

    @Test
    void defaultClaimLimitIsTen() {
        Messages.post(project, q, 12, 300);
        claim("", "{\"ttl\": 60, \"grace\": 60}").then().statusCode(201).body("$", hasSize(10));
    }

    @Test
    void queryRenewAndReleaseAClaim() {
        Messages.post(project, q, 2, 300);
        Response claimed = claim("?limit=2", "{\"ttl\": 300, \"grace\": 60}");
        String location = claimed.header("Location");

        Api.as(project)
                .get(location)
                .then()
                .statusCode(200)
                .header("Content-Location", location)
                .body("ttl", equalTo(300))
                .body("age", lessThanOrEqualTo(5))
                .body("href", equalTo(location))
                .body(
                        "messages.href",
                        contains(claimed.jsonPath().getList("href").toArray()))
                .body("messages.body.n", contains(0, 1));

        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 600, \"grace\": 30}")
                .patch(location)
                .then()
                .statusCode(204)
                .body(emptyString());
        Api.as(project)
                .get(location)
                .then()
                .statusCode(200)
                .body("ttl", equalTo(600))
                .body("age", allOf(greaterThanOrEqualTo(0), lessThanOrEqualTo(5)))
                // The messages now live until the claim ends plus grace (630 s from about now).
                .body("messages.ttl", everyItem(allOf(greaterThanOrEqualTo(630), lessThanOrEqualTo(640))));

        String messageHref = claimed.jsonPath().getString("[0].href");
        Api.as(project).delete(location).then().statusCode(204);
        Api.as(project)
                .get(location)
                .then()
                .statusCode(404)
                .body("title", equalTo("Not found"))
                .body(
                        "description",
                        equalTo("Claim " + location.substring(claims.length() + 1) + " does not exist in queue " + q
                                + " for project " + project));
        Api.as(project).delete(location).then().statusCode(204);
        // Released messages are free at once.
        Api.as(project).get("/v1/queues/" + q + "/stats").then().body("messages.free", equalTo(2));
        Api.as(project)
                .delete(messageHref)
                .then()
                .statusCode(400)
                .body("description", equalTo("A claim was specified, but the message is not currently claimed."));
    }

    @Test
    void claimRulesForDeletingMessages() {
        List<String> hrefs = Messages.post(project, q, 2, 300);
        Response claimed = claim("?limit=1", "{\"ttl\": 300, \"grace\": 60}");
        String withClaim = claimed.jsonPath().getString("[0].href");
        String claimId = Messages.claimId(withClaim);

        Api.as(project).get(hrefs.get(0)).then().statusCode(200).body("href", equalTo(hrefs.get(0)));
        Api.as(project)
                .delete(hrefs.get(0))
                .then()
                .statusCode(403)
                .body("title", equalTo("Unable to delete"))
                .body(
                        "description",
                        equalTo("This message is claimed; it cannot be deleted without a valid claim ID."));
        for (String wrong : List.of("00000000-0000-0000-0000-000000000001", "not-a-claim")) {
            Api.as(project)
                    .delete(hrefs.get(0) + "?claim_id=" + wrong)
                    .then()
                    .statusCode(400)
                    .body("title", equalTo("Unable to delete"))
                    .body("description", equalTo("The specified claim does not exist or has expired."));
        }
        Api.as(project)
                .delete(hrefs.get(1) + "?claim_id=" + claimId)
                .then()
                .statusCode(400)
                .body("title", equalTo("Unable to delete"))
                .body("description", equalTo("A claim was specified, but the message is not currently claimed."));

        Api.as(project).get(hrefs.get(0)).then().statusCode(200);
        Api.as(project).delete(withClaim).then().statusCode(204);
        Api.as(project).get(hrefs.get(0)).then().statusCode(404);
        Api.as(project).get(hrefs.get(1)).then().statusCode(200);
    }

    @Test
    void anEndedClaimFreesItsMessagesAtOnceAndItsIdNoLongerDeletes() {
        Messages.post(project, q, 2, 300);
        Response first = claim("?limit=2", "{\"ttl\": 60, \"grace\": 60}");
        String firstHref = first.jsonPath().getString("[0].href");
        String firstClaim = Messages.claimId(firstHref);

        endClaim(firstClaim);

        Api.as(project).get(claims + "/" + firstClaim).then().statusCode(404);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 100}")
                .patch(claims + "/" + firstClaim)
                .then()
                .statusCode(404);
        Api.as(project)
                .get("/v1/queues/" + q + "/stats")
                .then()
                .body("messages.free", equalTo(2))
                .body("messages.claimed", equalTo(0));
        Api.as(project)
                .get("/v1/queues/" + q + "/messages?echo=true")
                .then()
                .statusCode(200)
                .body("messages", hasSize(2));

        // A late delete with the ended claim, before anyone else claims the message.
        Api.as(project)
                .delete(firstHref)
                .then()
                .statusCode(400)
                .body("description", equalTo("A claim was specified, but the message is not currently claimed."));

        // Claimable again at once, without waiting for the sweeper.
        Response second = claim("?limit=2", "{\"ttl\": 60, \"grace\": 60}");
        second.then().statusCode(201).body("$", hasSize(2));
        String secondHref = second.jsonPath().getString("[0].href");

        Api.as(project)
                .delete(firstHref)
                .then()
                .statusCode(400)
                .body("description", equalTo("The specified claim does not exist or has expired."));
        Api.as(project).delete(secondHref).then().statusCode(204);
        Api.as(project).get("/v1/queues/" + q + "/stats").then().body("messages.total", equalTo(1));
    }

    @Test
    void claimedMessagesLiveAtLeastUntilTheClaimEndsPlusGrace() {
        String href = Messages.post(project, q, 1, 60).get(0);
        Response claimed = claim("?limit=1", "{\"ttl\": 300, \"grace\": 200}");
        claimed.then().statusCode(201).body("[0].ttl", allOf(greaterThanOrEqualTo(500), lessThanOrEqualTo(505)));

        Row row = Db.run(
                        pool,
                        """
                SELECT extract(epoch FROM m.expires_at - m.claim_expires_at) AS beyond_claim, m.ttl,
                       extract(epoch FROM m.expires_at - m.created_at) AS lifetime
                FROM messages m WHERE m.id = $1""",
                        Messages.rowId(href))
                .iterator()
                .next();
        assertTrue(row.getDouble("beyond_claim") >= 200, "message outlives its claim by the grace");
        assertEquals(row.getInteger("ttl").doubleValue(), row.getDouble("lifetime"), 0.001);

        Api.as(project).get(href).then().statusCode(200).body("ttl", greaterThanOrEqualTo(500));
    }

    @Test
    void aLongerLivedMessageIsNotShortenedByItsClaim() {
        String href = Messages.post(project, q, 1, 3600).get(0);
        claim("?limit=1", "{\"ttl\": 60, \"grace\": 60}").then().statusCode(201).body("[0].ttl", equalTo(3600));
        Api.as(project).get(href).then().body("ttl", equalTo(3600));
    }

    @Test
    void claimExtensionNeverGoesBeyondFourteenDaysFromPosting() {
        String href = Messages.post(project, q, 1, 60).get(0);
        // Make the message almost 14 days old, still alive for a minute.
        Db.run(
                pool,
                """
                UPDATE messages SET created_at = now() - interval '1209000 seconds', ttl = 1209060,
                       expires_at = now() - interval '1209000 seconds' + interval '1209060 seconds'
                WHERE id = $1""",
                Messages.rowId(href));
        claim("?limit=1", "{\"ttl\": 43200, \"grace\": 43200}")
                .then()
                .statusCode(201)
                .body("[0].ttl", equalTo(1209600));
        double lifetime = Db.run(
                        pool,
                        "SELECT extract(epoch FROM expires_at - created_at) FROM messages WHERE id = $1",
                        Messages.rowId(href))
                .iterator()
                .next()
                .getDouble(0);
        assertEquals(1209600.0, lifetime, 0.001);
    }

    @Test
    void unknownClaims() {
        for (String id : List.of(
                "51db7067821e727dc24df754", "no-such-claim", UUID.randomUUID().toString())) {
            Api.as(project)
                    .get(claims + "/" + id)
                    .then()
                    .statusCode(404)
                    .body("title", equalTo("Not found"))
                    .body(
                            "description",
                            equalTo("Claim " + id + " does not exist in queue " + q + " for project " + project));
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"ttl\": 100}")
                    .patch(claims + "/" + id)
                    .then()
                    .statusCode(404)
                    .body("title", equalTo("Not found"));
            Api.as(project).delete(claims + "/" + id).then().statusCode(204);
        }
    }

    @Test
    void claimBodyAndLimitValidation() {
        Messages.post(project, q, 1, 300);
        record Case(String query, String document, String title, String description) {}
        String ttlBounds = "The TTL for a claim may not exceed 43200 seconds, and must be at least 60 seconds long.";
        String graceBounds =
                "The grace for a claim may not exceed 43200 seconds, and must be at least 60 seconds long.";
        String limitBounds = "Limit must be at least 1 and may not be greater than 20.";
        List<Case> cases = List.of(
                new Case("", "{\"ttl\": 59, \"grace\": 60}", "Invalid API request", ttlBounds),
                new Case("", "{\"ttl\": 43201, \"grace\": 60}", "Invalid API request", ttlBounds),
                new Case("", "{\"ttl\": 60, \"grace\": 43201}", "Invalid API request", graceBounds),
                new Case("", "{\"ttl\": 60, \"grace\": 59}", "Invalid API request", graceBounds),
                new Case("", "{}", "Invalid request body", "Missing \"ttl\" field."),
                new Case("", "{\"ttl\": 60}", "Invalid request body", "Missing \"grace\" field."),
                new Case(
                        "",
                        "{\"ttl\": \"60\", \"grace\": 60}",
                        "Invalid request body",
                        "The value of the \"ttl\" field must be a int."),
                new Case("", "{\"ttl\": ", "Invalid request body", "Request body could not be parsed."),
                new Case(
                        "",
                        "[60, 60]",
                        "Invalid request body",
                        "Document type not supported. A claim is a JSON object with \"ttl\" and \"grace\" fields."),
                new Case("?limit=21", "{\"ttl\": 60, \"grace\": 60}", "Invalid API request", limitBounds),
                new Case("?limit=0", "{\"ttl\": 60, \"grace\": 60}", "Invalid API request", limitBounds),
                new Case(
                        "?limit=x",
                        "{\"ttl\": 60, \"grace\": 60}",
                        "Invalid parameter",
                        "The \"limit\" parameter is invalid. The value must be an integer."));
        for (Case c : cases) {
            claim(c.query(), c.document())
                    .then()
                    .statusCode(400)
                    .contentType("application/json")
                    .body("title", equalTo(c.title()))
                    .body("description", equalTo(c.description()));
        }
        Api.as(project)
                .contentType(ContentType.JSON)
                .post(claims)
                .then()
                .statusCode(400)
                .body("description", equalTo("Request body can not be empty"));
        // Nothing was claimed by any of them.
        Api.as(project).get("/v1/queues/" + q + "/stats").then().body("messages.free", equalTo(1));

        claim("?limit=1", "{\"ttl\": 60, \"grace\": 60}").then().statusCode(201);
        String location = Api.as(project)
                .get("/v1/queues/" + q + "/messages?include_claimed=true&echo=true")
                .jsonPath()
                .getString("messages[0].href");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"grace\": 60}")
                .patch(claims + "/" + UUID.randomUUID())
                .then()
                .statusCode(400)
                .body("description", equalTo("Missing \"ttl\" field."));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 43201}")
                .patch(claims + "/" + UUID.randomUUID())
                .then()
                .statusCode(400)
                .body("description", equalTo(ttlBounds));
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 43201}")
                .patch(claims + "/" + UUID.randomUUID())
                .then()
                .statusCode(400)
                .body(
                        "description",
                        equalTo(
                                "The grace for a claim renewal may not exceed 43200 seconds, and may not be negative."));
        Api.as(project).get(location).then().statusCode(200);
    }

    /** As in Zaqar 15: a claim on a queue that does not exist claims nothing (204), in every version. */
    @Test
    void claimOnMissingQueueIsNoContent() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v1/queues/missing/claims")
                .then()
                .statusCode(204)
                .body(emptyString());
        Api.as(project).get("/v1/queues/missing").then().statusCode(404);
    }

    @Test
    void expiredMessagesAreInvisibleAtOnceAndTheSweeperDeletesThem() {
        List<String> hrefs = Messages.post(project, q, 3, 300);
        Response claimed = claim("?limit=1", "{\"ttl\": 60, \"grace\": 60}");
        String claimId = Messages.claimId(claimed.jsonPath().getString("[0].href"));
        // Message 1 expires; the claim on message 0 ends.
        Db.run(
                pool,
                "UPDATE messages SET expires_at = now() - interval '1 second' WHERE id = $1",
                Messages.rowId(hrefs.get(1)));
        endClaim(claimId);

        Api.as(project).get(hrefs.get(1)).then().statusCode(404);
        Api.as(project)
                .get("/v1/queues/" + q + "/messages?echo=true&include_claimed=true")
                .then()
                .statusCode(200)
                .body("messages.href", contains(hrefs.get(0), hrefs.get(2)));
        Api.as(project)
                .get("/v1/queues/" + q + "/stats")
                .then()
                .body("messages.total", equalTo(2))
                .body("messages.claimed", equalTo(0));

        Sweeper.Sweep sweep = sweeper.sweep().await().indefinitely();
        assertTrue(sweep.messagesDeleted() >= 1 || gone(hrefs.get(1)), "expired message swept");

        assertEquals(0, Db.count(pool, "SELECT count(*) FROM messages WHERE id = $1", Messages.rowId(hrefs.get(1))));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM claims WHERE id = $1", UUID.fromString(claimId)));
        assertEquals(0, Db.count(pool, "SELECT count(*) FROM messages WHERE claim_id = $1", UUID.fromString(claimId)));
        // Returned to the free set, where the claim's index finds it.
        claim("?limit=5", "{\"ttl\": 60, \"grace\": 60}").then().statusCode(201).body("body.n", contains(0, 2));
    }

    private boolean gone(String href) {
        return Db.count(pool, "SELECT count(*) FROM messages WHERE id = $1", Messages.rowId(href)) == 0;
    }
}
