package io.pigeon.quota;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pigeon.testing.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A project holds at most pigeon.redrive.max-tasks-per-project (2 here) redrive tasks on a database: started at once
 * by parallel clients on three queues, two run and the third is refused (429); an ended task then makes room for a new
 * one, which takes its place in the list.
 */
@QuarkusTest
@TestProfile(SmallQuotasProfile.class)
class RedriveTasksBoundTest {

    private final String project = Api.newProject();

    private Response start(String queue) {
        return Api.as(project)
                .contentType(ContentType.JSON)
                .body("{\"rate\": 1}")
                .post("/v2/queues/" + queue + "/redrive");
    }

    @Test
    void parallelStartsBeyondTheBoundAreRefusedAndEndedTasksMakeRoom() throws Exception {
        List<String> queues = List.of("a", "b", "c");
        for (String queue : queues) {
            Api.as(project)
                    .contentType(ContentType.JSON)
                    .body("{\"messages\": [{\"ttl\": 600, \"body\": 1}]}")
                    .post("/v2/queues/" + queue + "/messages")
                    .then()
                    .statusCode(201);
        }
        ExecutorService threads = Executors.newFixedThreadPool(queues.size());
        List<Response> answers = new ArrayList<>();
        try {
            CompletableFuture<Void> go = new CompletableFuture<>();
            List<Future<Response>> pending = new ArrayList<>();
            for (String queue : queues) {
                pending.add(threads.submit(() -> {
                    go.get();
                    // A target for each so that the one message stays and every task keeps running.
                    return Api.as(project)
                            .contentType(ContentType.JSON)
                            .body("{\"rate\": 1, \"target\": \"" + (queue.equals("a") ? "b" : "a") + "\"}")
                            .post("/v2/queues/" + queue + "/redrive");
                }));
            }
            go.complete(null);
            for (Future<Response> answer : pending) {
                answers.add(answer.get(30, TimeUnit.SECONDS));
            }
        } finally {
            threads.shutdownNow();
        }
        List<Integer> statuses = answers.stream().map(Response::statusCode).toList();
        assertEquals(2, statuses.stream().filter(status -> status == 201).count(), statuses.toString());
        Response refused = answers.stream()
                .filter(answer -> answer.statusCode() != 201)
                .findFirst()
                .orElseThrow();
        refused.then()
                .statusCode(429)
                .contentType(ContentType.JSON)
                .header("Retry-After", "30")
                .body("title", equalTo("Quota exceeded"))
                .body("description", containsString("pigeon.redrive.max-tasks-per-project"));

        // Each running task is cancelled (ended, kept): new starts take the places of the oldest.
        List<String> started = answers.stream()
                .filter(answer -> answer.statusCode() == 201)
                .map(answer -> answer.header("Location"))
                .toList();
        for (String href : started) {
            Api.as(project).delete(href).then().statusCode(204);
        }
        String refusedQueue = queues.stream()
                .filter(queue -> started.stream().noneMatch(href -> href.contains("/queues/" + queue + "/")))
                .findFirst()
                .orElseThrow();
        start(refusedQueue).then().statusCode(201);
        start(started.get(0).split("/")[3]).then().statusCode(201);
        // Two running now: the third queue's start is refused, though its own task has ended.
        start(started.get(1).split("/")[3]).then().statusCode(429);
        long kept = queues.stream()
                .mapToLong(queue -> Api.as(project)
                        .get("/v2/queues/" + queue + "/redrive")
                        .jsonPath()
                        .getList("tasks")
                        .size())
                .sum();
        assertEquals(2, kept, "tasks the project holds");
        Api.as(project).get("/v2/queues/" + refusedQueue + "/redrive").then().body("tasks", hasSize(1));
    }
}
