package io.pigeon.claim;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.api.ws.SmallReplicaLimitsProfile;
import io.pigeon.testing.Api;
import io.pigeon.testing.Eventually;
import io.pigeon.testing.RawHttp;
import io.pigeon.waiting.QueueWaits;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A client that closes its connection while its long poll waits leaves at once, through either door (a Zaqar claim
 * with {@code wait}, an SQS {@code ReceiveMessage} with {@code WaitTimeSeconds}): its place under the per-project bound
 * (2 in {@link SmallReplicaLimitsProfile}) is free again long before its wait would have ended, so the same project's
 * next long polls are admitted, and nothing is claimed for the clients that left: a message posted after they left is
 * there for the next claim.
 */
@QuarkusTest
@TestProfile(SmallReplicaLimitsProfile.class)
class DepartedWaitersTest {

    private static final String SQS_JSON = "application/x-amz-json-1.0";

    /**
     * Longer than the tries that follow a queue's first mark (500 ms after it): a waiter whose client left then is only
     * tried again when a message may be free, so what frees its place is hearing that the connection closed.
     */
    private static final Duration SETTLED = Duration.ofSeconds(2);

    @Inject
    QueueWaits waits;

    @Test
    void zaqarClaimsWhoseClientsLeftFreeTheirPlacesAtOnce() throws Exception {
        Eventually.await("no waiter of another test", Duration.ofSeconds(30), () -> waits.waiting() == 0);
        String project = Api.newProject();
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{}")
                .put("/v2/queues/departed")
                .then()
                .statusCode(201);

        List<Socket> gone = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            gone.add(send(zaqarClaim(project, 20)));
        }
        Eventually.await("two waiting claims", Duration.ofSeconds(15), () -> waits.waiting() == 2);
        Eventually.pause(SETTLED); // past the tries that follow a queue's first mark
        for (Socket socket : gone) {
            socket.close();
        }
        // Their waits had 20 s to go: the places come free well before.
        Eventually.await("the departed claims left", Duration.ofSeconds(10), () -> waits.waiting() == 0);

        List<Socket> next = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            next.add(send(zaqarClaim(project, 2)));
        }
        for (Socket socket : next) {
            try (socket) {
                assertEquals(204, RawHttp.read(socket.getInputStream()).status(), "admitted, empty at its wait's end");
            }
        }

        // Nothing was claimed for the clients that left: a message posted now is free for the next claim.
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [{\"ttl\": 300, \"body\": \"after\"}]}")
                .post("/v2/queues/departed/messages")
                .then()
                .statusCode(201);
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"ttl\": 60, \"grace\": 60}")
                .post("/v2/queues/departed/claims")
                .then()
                .statusCode(201);
    }

    @Test
    void sqsReceivesWhoseClientsLeftFreeTheirPlacesAtOnce() throws Exception {
        Eventually.await("no waiter of another test", Duration.ofSeconds(30), () -> waits.waiting() == 0);
        String project = Api.newProject();
        String url = sqs(project, "CreateQueue", "{\"QueueName\": \"departed\"}")
                .then()
                .statusCode(200)
                .extract()
                .path("QueueUrl");

        List<Socket> gone = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            gone.add(send(sqsReceive(project, url, 20)));
        }
        Eventually.await("two waiting receives", Duration.ofSeconds(15), () -> waits.waiting() == 2);
        Eventually.pause(SETTLED); // past the tries that follow a queue's first mark
        for (Socket socket : gone) {
            socket.close();
        }
        Eventually.await("the departed receives left", Duration.ofSeconds(10), () -> waits.waiting() == 0);

        List<Socket> next = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            next.add(send(sqsReceive(project, url, 2)));
        }
        for (Socket socket : next) {
            try (socket) {
                RawHttp.Answer answer = RawHttp.read(socket.getInputStream());
                assertEquals(200, answer.status(), answer.toString());
                assertTrue(!answer.body().contains("ReceiptHandle"), answer.toString());
            }
        }

        sqs(project, "SendMessage", "{\"QueueUrl\": \"" + url + "\", \"MessageBody\": \"after\"}")
                .then()
                .statusCode(200);
        String received = sqs(project, "ReceiveMessage", "{\"QueueUrl\": \"" + url + "\"}")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        assertTrue(received.contains("\"after\""), received);
    }

    private static String zaqarClaim(String project, int wait) {
        String body = "{\"ttl\": 60, \"grace\": 60, \"wait\": " + wait + "}";
        return "POST /v2/queues/departed/claims HTTP/1.1\r\n"
                + "Host: localhost\r\n"
                + "Connection: close\r\n"
                + "X-Project-Id: " + project + "\r\n"
                + "Client-ID: " + Api.CLIENT_ID + "\r\n"
                + "Content-Type: application/json\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n"
                + body;
    }

    private static String sqsReceive(String project, String url, int wait) {
        String body = "{\"QueueUrl\": \"" + url + "\", \"WaitTimeSeconds\": " + wait + "}";
        return "POST / HTTP/1.1\r\n"
                + "Host: localhost\r\n"
                + "Connection: close\r\n"
                + "Authorization: " + credential(project) + "\r\n"
                + "X-Amz-Target: AmazonSQS.ReceiveMessage\r\n"
                + "Content-Type: " + SQS_JSON + "\r\n"
                + "Content-Length: " + body.length() + "\r\n\r\n"
                + body;
    }

    /** With authentication off, the access key id names the project and the signature is not checked. */
    private static String credential(String project) {
        return "AWS4-HMAC-SHA256 Credential=" + project + "/20261129/us-east-1/sqs/aws4_request, "
                + "SignedHeaders=host;x-amz-date, Signature=0000";
    }

    private static Response sqs(String project, String action, String body) {
        RequestSpecification request = given().header("Authorization", credential(project))
                .header("X-Amz-Target", "AmazonSQS." + action)
                .contentType(SQS_JSON)
                .body(body.getBytes(StandardCharsets.UTF_8));
        return request.post("/");
    }

    /** A connection with {@code request} sent on it, its answer not read. */
    private static Socket send(String request) throws IOException {
        Socket socket = new Socket("localhost", RestAssured.port);
        socket.setSoTimeout(30_000);
        socket.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
        return socket;
    }
}
