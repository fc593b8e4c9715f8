package io.pigeon.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * How fast a long-polling ReceiveMessage wakes when a message arrives (issue 42, goal p99 under 100 ms, as the Zaqar
 * API's waiting claim): per trial a ReceiveMessage with {@code WaitTimeSeconds} 20 waits on an empty queue, a
 * SendMessage follows 150 ms later, and the time from sending the SendMessage (its own round trip included) to the
 * receive's answer is one wake; the message is then deleted by its receipt handle. Beside each SQS trial the same
 * through the Zaqar v2 API (a claim with {@code "wait": 20} woken by a post), for a figure taken in the same minutes of
 * the machine. Trials run one at a time, on the
 * same replica ({@code bench.url} receives and sends) and, when {@code bench.other-url} names a second replica on the
 * same database, across replicas (the receive waits there, the send goes to {@code bench.url}). Prints p50/p99/max per
 * wire and case. Pigeon in auth mode {@code none} (unsigned requests, the access key id names the project). Settings: {@code
 * bench.wake-trials} (200). Not a test; nothing asserted.
 */
final class SqsWakeBench {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** How long the receive is given to start waiting before the send: a send before it only shortens a wake. */
    private static final long PARK_MILLIS = 150;

    private static final String CLIENT = "3381af92-2b9e-11e3-b191-71861300734c";
    private static final String ZAQAR_QUEUE = "wake-zaqar";

    private final HttpClient http = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final String project = "sqswake-" + UUID.randomUUID().toString().substring(0, 8);

    private SqsWakeBench() {}

    static void run(String url) throws Exception {
        int trials = Integer.getInteger("bench.wake-trials", 200);
        String other = System.getProperty("bench.other-url", "").trim();
        SqsWakeBench bench = new SqsWakeBench();
        String queueUrl = bench.call(url, "CreateQueue", "{\"QueueName\":\"wake\"}")
                .get("QueueUrl")
                .asText();
        System.out.printf(
                Locale.ROOT,
                "ReceiveMessage (WaitTimeSeconds 20) woken by a SendMessage, %d trials per case, queue %s%n",
                trials,
                queueUrl);
        HttpResponse<String> created = bench.http.send(
                bench.zaqar(url, "").PUT(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        if (created.statusCode() != 201 && created.statusCode() != 204) {
            throw new IllegalStateException("PUT queue answered " + created.statusCode());
        }
        bench.trials("same replica", url, url, queueUrl, trials);
        if (!other.isEmpty()) {
            bench.trials("across replicas", other, url, queueUrl, trials);
        }
    }

    /**
     * {@code trials} wakes through each wire, the SQS one and the Zaqar v2 waiting claim alternating trial by trial
     * (so that both meet the same moments of a busy machine), the first five of each unmeasured.
     */
    private void trials(String name, String receiver, String sender, String queueUrl, int trials) throws Exception {
        List<Double> sqs = new ArrayList<>();
        List<Double> zaqar = new ArrayList<>();
        int[] missed = new int[2];
        for (int trial = 0; trial < trials + 5; trial++) {
            OptionalDouble viaSqs = sqsWake(receiver, sender, queueUrl, trial);
            OptionalDouble viaZaqar = zaqarWake(receiver, sender, trial);
            if (viaSqs.isEmpty()) {
                missed[0]++;
            } else if (trial >= 5) {
                sqs.add(viaSqs.getAsDouble());
            }
            if (viaZaqar.isEmpty()) {
                missed[1]++;
            } else if (trial >= 5) {
                zaqar.add(viaZaqar.getAsDouble());
            }
        }
        print(name + ", SQS", sqs, missed[0]);
        print(name + ", Zaqar", zaqar, missed[1]);
    }

    private static void print(String name, List<Double> wakes, int missed) {
        wakes.sort(Double::compare);
        System.out.printf(
                Locale.ROOT,
                "%-24s %d wakes: p50 %.1f ms, p99 %.1f ms, max %.1f ms%s%n",
                name,
                wakes.size(),
                percentile(wakes, 0.50),
                percentile(wakes, 0.99),
                wakes.get(wakes.size() - 1),
                missed == 0 ? "" : " (" + missed + " waits answered without the message)");
    }

    /** One ReceiveMessage woken by a SendMessage: ms from sending the send to the receive's answer. */
    private OptionalDouble sqsWake(String receiver, String sender, String queueUrl, int trial) throws Exception {
        CompletableFuture<Answer> answered = http.sendAsync(
                        request(
                                receiver,
                                "ReceiveMessage",
                                "{\"QueueUrl\":\"" + queueUrl + "\",\"WaitTimeSeconds\":20,"
                                        + "\"MaxNumberOfMessages\":1,\"VisibilityTimeout\":30}"),
                        HttpResponse.BodyHandlers.ofString())
                .thenApply(response -> new Answer(System.nanoTime(), response.statusCode(), response.body()));
        Thread.sleep(PARK_MILLIS);
        long sent = System.nanoTime();
        call(sender, "SendMessage", "{\"QueueUrl\":\"" + queueUrl + "\",\"MessageBody\":\"wake " + trial + "\"}");
        Answer answer = answered.get();
        JsonNode messages = JSON.readTree(answer.body()).path("Messages");
        if (messages.size() != 1) {
            return OptionalDouble.empty();
        }
        call(
                sender,
                "DeleteMessage",
                "{\"QueueUrl\":\"" + queueUrl + "\",\"ReceiptHandle\":\""
                        + messages.get(0).get("ReceiptHandle").asText() + "\"}");
        return OptionalDouble.of((answer.at() - sent) / 1e6);
    }

    /** The same through the Zaqar v2 API: a claim with {@code "wait": 20} woken by a post, then deleted. */
    private OptionalDouble zaqarWake(String receiver, String sender, int trial) throws Exception {
        CompletableFuture<Answer> answered = http.sendAsync(
                        zaqar(receiver, "/claims?limit=1")
                                .POST(HttpRequest.BodyPublishers.ofString("{\"ttl\": 60, \"grace\": 60, \"wait\": 20}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .thenApply(response -> new Answer(System.nanoTime(), response.statusCode(), response.body()));
        Thread.sleep(PARK_MILLIS);
        long sent = System.nanoTime();
        HttpResponse<String> posted = http.send(
                zaqar(sender, "/messages")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "{\"messages\": [{\"ttl\": 300, \"body\": \"wake " + trial + "\"}]}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (posted.statusCode() != 201) {
            throw new IllegalStateException("post answered " + posted.statusCode() + ": " + posted.body());
        }
        Answer answer = answered.get();
        if (answer.status() == 204) {
            return OptionalDouble.empty();
        }
        if (answer.status() != 201) {
            throw new IllegalStateException("claim answered " + answer.status() + ": " + answer.body());
        }
        String href =
                JSON.readTree(answer.body()).path("messages").get(0).get("href").asText();
        http.send(
                HttpRequest.newBuilder(URI.create(sender + href))
                        .header("X-Project-Id", project)
                        .header("Client-ID", CLIENT)
                        .DELETE()
                        .build(),
                HttpResponse.BodyHandlers.discarding());
        return OptionalDouble.of((answer.at() - sent) / 1e6);
    }

    private HttpRequest.Builder zaqar(String base, String suffix) {
        return HttpRequest.newBuilder(URI.create(base + "/v2/queues/" + ZAQAR_QUEUE + suffix))
                .header("X-Project-Id", project)
                .header("Client-ID", CLIENT)
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30));
    }

    /** When a receive was answered (System.nanoTime) and what with. */
    private record Answer(long at, int status, String body) {}

    /** The p-quantile (nearest rank) of {@code sorted}, which must not be empty. */
    static double percentile(List<Double> sorted, double p) {
        return sorted.get(Math.max(0, (int) Math.ceil(p * sorted.size()) - 1));
    }

    private JsonNode call(String base, String action, String body) throws Exception {
        HttpResponse<String> response = http.send(request(base, action, body), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException(action + " answered " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    private HttpRequest request(String base, String action, String body) {
        return HttpRequest.newBuilder(URI.create(base + "/"))
                .header("Content-Type", "application/x-amz-json-1.0")
                .header("X-Amz-Target", "AmazonSQS." + action)
                .header("X-Amz-Date", "20260101T000000Z")
                .header(
                        "Authorization",
                        "AWS4-HMAC-SHA256 Credential=" + project
                                + "/20260101/us-east-1/sqs/aws4_request, SignedHeaders=host;x-amz-date, Signature=00")
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }
}
