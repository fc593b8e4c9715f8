package io.pigeon.quota;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * Quotas, rates, connection limits and scaler streams small enough to reach in a test; the usage check runs when the
 * test asks. Its tests call receivers on 127.0.0.1 only a few times a second, so the call rate per target address is
 * low too; idle connections are closed after 5 s, and 1,000 connections at most are open at once (RestAssured leaves each
 * of its connections open until the server closes it: with 200, the classes of this profile run back to back on a quiet
 * machine made more requests than that within 5 s, and the next class's requests were refused). A request head and
 * a request body have 5 s and 8 s to arrive, and one client address holds 500 connections at most (SlowClientsTest;
 * ConnectionLimitsTest opens its thousand from several loopback addresses; RestAssured's, all from 127.0.0.1, stay
 * far below it within the 5 s idle timeout). The
 * per-queue metrics serve 3 queues per answer and count 2 queues per replica between flushes (QueueMetricsBoundsTest;
 * the other classes of this profile read no per-queue series). The gRPC port holds 6 connections of 3 calls each,
 * closes a connection without a call after 3 s and ends a call whose request is not whole after 3 s
 * (ScalerPortBoundsTest; ScalerStreamBoundsTest opens one connection per stream, at most 5 at once, and calls at once).
 * A replica runs 2 redrive tasks at once, 1 of each project (RedriveFairShareTest; RedriveTasksBoundTest counts tasks
 * stored, not run). A project remembers 3 SQS ReceiveRequestAttemptIds at once (SqsReceiveAttemptsBoundTest; no other
 * class of this profile receives with one).
 */
public class SmallQuotasProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.ofEntries(
                Map.entry("pigeon.quotas.max-queues-per-project", "3"),
                Map.entry("pigeon.quotas.max-messages-per-queue", "5"),
                Map.entry("pigeon.quotas.max-subscriptions-per-queue", "2"),
                Map.entry("pigeon.quotas.max-pending-groups-per-project", "3"),
                Map.entry("pigeon.quotas.max-notifications-per-post", "4"),
                Map.entry("pigeon.quotas.max-pending-items-per-project", "8"),
                Map.entry("pigeon.quotas.max-pending-bytes-per-project", "3000"),
                Map.entry("pigeon.quotas.max-items-per-group", "3"),
                Map.entry("pigeon.quotas.max-post-keys-per-project", "3"),
                Map.entry("pigeon.quotas.check-interval", "1h"),
                Map.entry("pigeon.redrive.max-tasks-per-project", "2"),
                Map.entry("pigeon.redrive.max-running-per-replica", "2"),
                Map.entry("pigeon.redrive.max-running-per-project-per-replica", "1"),
                Map.entry("pigeon.dispatch.max-calls-per-host-per-second", "5"),
                Map.entry("pigeon.scaler.max-streams", "3"),
                Map.entry("pigeon.scaler.max-streams-per-project", "2"),
                Map.entry("pigeon.scaler.max-connections", "6"),
                Map.entry("pigeon.scaler.first-call-timeout", "3s"),
                Map.entry("pigeon.scaler.max-calls-per-connection", "3"),
                Map.entry("pigeon.scaler.request-timeout", "3s"),
                Map.entry("quarkus.http.idle-timeout", "5s"),
                Map.entry("quarkus.http.limits.max-connections", "1000"),
                // Sockets must leave connections for HTTP requests (ServerSettingsCheck): 500 of the 1,000.
                Map.entry("pigeon.websocket.max-sockets", "400"),
                Map.entry("pigeon.websocket.max-anonymous-sockets", "100"),
                Map.entry("pigeon.http.request-head-timeout", "5s"),
                Map.entry("pigeon.http.request-body-timeout", "8s"),
                Map.entry("pigeon.http.max-connections-per-address", "500"),
                Map.entry("pigeon.queue-metrics.max-series", "39"),
                Map.entry("pigeon.queue-metrics.max-counted-queues", "2"),
                Map.entry("pigeon.sqs.max-receive-attempts-per-project", "3"));
    }
}
