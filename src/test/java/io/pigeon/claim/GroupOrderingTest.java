package io.pigeon.claim;

import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The claim model of groups (issue 43, decision 0020) as one client sees it through the Zaqar API: on a "fifo" queue a
 * group's messages are claimed in post order and by one claim at a time, a claim is filled a group at a time, a
 * released message comes back before the rest of its group, a message without a group is a group of its own, pops
 * obey the same rule; on a "fair" queue one claim serves every group before the second message of any; on a queue of
 * none groups change nothing.
 */
@QuarkusTest
class GroupOrderingTest {

    private final String project = Api.newProject();

    private void queue(String name, String ordering) {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body(ordering == null ? "{}" : "{\"_ordering\": \"" + ordering + "\"}")
                .put("/v2/queues/" + name)
                .then()
                .statusCode(201);
    }

    /** Posts one message per body, in order, with the group each names ("-": none). */
    private void post(String queue, String... groupedBodies) {
        for (String grouped : groupedBodies) {
            String[] parts = grouped.split(":");
            String group = parts[0].equals("-") ? "" : ", \"group\": \"" + parts[0] + "\"";
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"messages\": [{\"body\": \"" + parts[1] + "\"" + group + "}]}")
                    .post("/v2/queues/" + queue + "/messages")
                    .then()
                    .statusCode(201);
        }
    }

    private Response claim(String queue, int limit) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 300, \"grace\": 60}")
                .post("/v2/queues/" + queue + "/claims?limit=" + limit);
    }

    private static List<String> bodies(Response claim) {
        return claim.statusCode() == 204 ? List.of() : claim.jsonPath().getList("messages.body", String.class);
    }

    private void deleteAll(Response claim) {
        for (String href : claim.jsonPath().getList("messages.href", String.class)) {
            Api.as(project).delete(href).then().statusCode(204);
        }
    }

    @Test
    void fifoClaimsAGroupInPostOrderAndOneClaimAtATime() {
        queue("fifo", "fifo");
        post("fifo", "a:a1", "b:b1", "a:a2", "-:u1", "a:a3", "b:b2", "-:u2");

        Response first = claim("fifo", 1);
        assertEquals(List.of("a1"), bodies(first));
        // Group a is held: the next claim passes over a2 and a3, takes b in order, and each ungrouped message.
        Response second = claim("fifo", 10);
        assertEquals(List.of("b1", "u1", "b2", "u2"), bodies(second));
        assertEquals(List.of(), bodies(claim("fifo", 10)));

        // Released, a1 comes back before anything later in its group; a claim may take a whole group in order.
        Api.as(project).delete(first.header("Location")).then().statusCode(204);
        Response third = claim("fifo", 10);
        assertEquals(List.of("a1", "a2", "a3"), bodies(third));

        // Deleting a group's claimed messages frees the group for its next message.
        deleteAll(second);
        post("fifo", "b:b3");
        assertEquals(List.of("b3"), bodies(claim("fifo", 10)));
    }

    @Test
    void aFifoClaimIsFilledAGroupAtATime() {
        queue("filled", "fifo");
        post("filled", "a:a1", "b:b1", "a:a2", "c:c1", "b:b2", "a:a3", "-:u1", "c:c2");

        // The oldest message names the first group: all of a the claim wants, in order; then the next group by its
        // oldest message (b), as far as the count allows. Oldest first across groups would have taken c1 for a3.
        assertEquals(List.of("a1", "b1", "a2", "a3"), bodies(claim("filled", 4)));
        // a and b are held: c, then the ungrouped message, its own group.
        assertEquals(List.of("c1", "u1", "c2"), bodies(claim("filled", 10)));
        assertEquals(List.of(), bodies(claim("filled", 10)));
    }

    @Test
    void fifoReleasesSingleMessagesBackInOrder() {
        queue("partial", "fifo");
        post("partial", "g:1", "g:2", "g:3");
        Response claim = claim("partial", 2);
        assertEquals(List.of("1", "2"), bodies(claim));
        String first = claim.jsonPath().getString("messages[0].id");
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ids\": [\"" + first + "\"]}")
                .post(claim.header("Location").replace("/claims/", "/claims/") + "/release")
                .then()
                .statusCode(204);
        // 2 is still held by the claim: its group is not claimed again, 1 is not taken past it.
        assertEquals(List.of(), bodies(claim("partial", 10)));
        Api.as(project).delete(claim.header("Location")).then().statusCode(204);
        assertEquals(List.of("1", "2", "3"), bodies(claim("partial", 10)));
    }

    @Test
    void fifoPopsObeyTheGroups() {
        queue("popped", "fifo");
        post("popped", "g:1", "g:2", "h:1", "g:3");
        Response held = claim("popped", 1);
        assertEquals(List.of("1"), bodies(held));
        Api.as(project)
                .delete("/v2/queues/popped/messages?pop=10")
                .then()
                .statusCode(200)
                .body("messages.body", contains("1"))
                .body("messages", hasSize(1));
        deleteAll(held);
        Api.as(project)
                .delete("/v2/queues/popped/messages?pop=10")
                .then()
                .statusCode(200)
                .body("messages.body", contains("2", "3"));
    }

    @Test
    void fairServesEveryGroupBeforeTheSecondMessageOfAny() {
        queue("fair", "fair");
        List<String> posts = new ArrayList<>();
        posts.add("-:u");
        for (int i = 0; i < 20; i++) {
            posts.add("big:big" + i);
        }
        posts.add("s1:s1a");
        posts.add("s1:s1b");
        posts.add("s2:s2a");
        post("fair", posts.toArray(String[]::new));
        Response first = claim("fair", 4);
        assertEquals(List.of("big0", "s1a", "s2a", "u"), sorted(bodies(first)));
        Response second = claim("fair", 2);
        first.then().statusCode(201);
        second.then().body("messages.body", containsInAnyOrder("big1", "s1b"));
    }

    @Test
    void aDeadMessageLeavesItsGroupAndTheNextProceeds() {
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"_ordering\": \"fifo\", \"_max_claim_count\": 1, \"_dead_letter_queue\": \"dead\"}")
                .put("/v2/queues/dying")
                .then()
                .statusCode(201);
        post("dying", "g:1", "g:2");
        Response first = claim("dying", 1);
        assertEquals(List.of("1"), bodies(first));
        Api.as(project).delete(first.header("Location")).then().statusCode(204);
        // 1 was claimed as often as the queue allows: released, it is dead, and 2 is next in its group.
        assertEquals(List.of("2"), bodies(claim("dying", 10)));
    }

    @Test
    void noneIgnoresGroups() {
        queue("plain", null);
        post("plain", "a:1", "a:2", "b:3");
        assertEquals(List.of("1"), bodies(claim("plain", 1)));
        assertEquals(List.of("2", "3"), bodies(claim("plain", 10)));
    }

    private static List<String> sorted(List<String> bodies) {
        List<String> copy = new ArrayList<>(bodies);
        copy.sort(null);
        List<String> expected = new ArrayList<>(List.of("big0", "s1a", "s2a", "u"));
        return copy.containsAll(expected) && expected.containsAll(copy) ? expected : copy;
    }
}
