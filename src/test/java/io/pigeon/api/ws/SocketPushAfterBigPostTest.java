package io.pigeon.api.ws;

import static io.pigeon.api.ws.SocketClient.body;
import static io.pigeon.api.ws.SocketClient.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pigeon.storage.DatabaseNotices;
import io.pigeon.testing.Api;
import io.pigeon.testing.Db;
import io.pigeon.testing.Eventually;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A post of more than 1,024 messages made as the notices connection comes back, while the read-back catches up on a
 * backlog of more than 1,024: the read-back pushes that post itself, and its notice, heard meanwhile, must not push
 * its first ids again once the remembered ids have moved past them. The socket gets every post once, in order. Whether
 * the notice is heard before the read-back reaches the post depends on timing; {@code CatchUpAndNoticesTest} fixes
 * that order, this checks the whole path.
 */
@QuarkusTest
class SocketPushAfterBigPostTest {

    private static final Duration WITHIN = Duration.ofSeconds(20);
    private static final String QUEUE = "big-post";
    private static final int BACKLOG = 6_000;
    private static final int BIG = 1_500;

    @Inject
    Pool pool;

    private final String project = Api.newProject();
    private int posted;

    private long listening(long otherThan) {
        return Db.count(
                pool,
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND pid <> $2"
                        + " AND query ILIKE 'LISTEN%'",
                DatabaseNotices.APPLICATION_NAME,
                otherThan);
    }

    private void post(int count) {
        String messages = IntStream.range(posted, posted + count)
                .mapToObj(n -> "{\"ttl\": 600, \"body\": " + n + "}")
                .collect(Collectors.joining(","));
        posted += count;
        Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"messages\": [" + messages + "]}")
                .post("/v2/queues/" + QUEUE + "/messages")
                .then()
                .statusCode(201);
    }

    @Test
    void aBigPostAsTheConnectionComesBackIsPushedOnceInOrder() {
        try (SocketClient socket = SocketClient.open()) {
            assertEquals(
                    201,
                    socket.call(frame("subscription_create", project, body().put("queue_name", QUEUE)))
                            .status());
            post(5);
            long old = Db.run(
                            pool,
                            "SELECT pg_terminate_backend(pid), pid FROM pg_stat_activity WHERE application_name = $1",
                            DatabaseNotices.APPLICATION_NAME)
                    .iterator()
                    .next()
                    .getInteger("pid");
            for (int i = 0; i < BACKLOG; i += 1000) {
                post(1000);
            }
            Eventually.await("the notices connection listening again", WITHIN, () -> listening(old) == 1);
            post(BIG);
            post(5);

            List<Integer> pushed = new ArrayList<>();
            for (int i = 0; i < posted; i++) {
                pushed.add(socket.next().document().path("body").asInt());
            }
            long twice = pushed.size() - pushed.stream().distinct().count();
            int outOfOrder = (int) IntStream.range(1, pushed.size())
                    .filter(i -> pushed.get(i) < pushed.get(i - 1))
                    .count();
            assertEquals(0, twice, "posts pushed twice");
            assertEquals(0, outOfOrder, "pushes after a later post");
            assertEquals(IntStream.range(0, posted).boxed().toList(), pushed, "what the socket was pushed, in order");
            assertNull(socket.poll(Duration.ofSeconds(1)), "the socket was pushed a post twice");
        }
    }
}
