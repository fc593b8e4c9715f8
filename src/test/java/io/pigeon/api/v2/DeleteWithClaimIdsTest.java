package io.pigeon.api.v2;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;

import io.pigeon.testing.Api;
import io.pigeon.testing.Messages;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Zaqar's {@code message_delete_with_claim_id} ({@code pigeon.message-delete-with-claim-id}): a v2 bulk delete
 * names the claims of the claimed messages among its ids, and deletes nothing when one is held by another claim.
 */
@QuarkusTest
@TestProfile(ZaqarOptInsProfile.class)
class DeleteWithClaimIdsTest {

    private static final String BOTH = "The request should have both \"ids\" and \"claim_ids\" parameter in the "
            + "request when message_delete_with_claim_id is True.";

    private final String project = Api.newProject();
    private final String messages = "/v2/queues/guarded/messages";

    @Test
    void claimedMessagesAreDeletedOnlyWithTheirClaims() {
        List<String> ids = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"body\": 0}, {\"body\": 1}, {\"body\": 2}]}")
                .post(messages)
                .jsonPath()
                .getList("resources", String.class)
                .stream()
                .map(Messages::id)
                .toList();
        String claimed = Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .post("/v2/queues/guarded/claims?limit=2")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getString("messages[0].href");
        String claimId = Messages.claimId(claimed);
        String otherClaim = "a1a1a1a1-0000-4000-8000-000000000001";

        Api.as(project)
                .delete(messages + "?ids=" + ids.get(2))
                .then()
                .statusCode(400)
                .body("description", equalTo(BOTH));
        Api.as(project)
                .delete(messages + "?pop=1&claim_ids=" + claimId)
                .then()
                .statusCode(400)
                .body("description", equalTo(BOTH));
        // Another claim's id, or a malformed one: nothing at all is deleted.
        for (String wrong : List.of(otherClaim, "not-a-claim")) {
            Api.as(project)
                    .delete(messages + "?ids=" + ids.get(0) + "," + ids.get(2) + "&claim_ids=" + wrong)
                    .then()
                    .statusCode(403)
                    .body("title", equalTo("Unable to delete"));
        }
        Api.as(project)
                .get(messages + "?include_claimed=true&echo=true")
                .then()
                .body("messages.body", contains(0, 1, 2));
        // With the claim: its messages and the unclaimed one go.
        Api.as(project)
                .delete(messages + "?ids=" + ids.get(0) + "&ids=" + ids.get(1) + "&ids=" + ids.get(2) + "&claim_ids="
                        + otherClaim + "&claim_ids=" + claimId)
                .then()
                .statusCode(204);
        Api.as(project).get(messages + "?include_claimed=true&echo=true").then().body("messages", equalTo(List.of()));
    }
}
