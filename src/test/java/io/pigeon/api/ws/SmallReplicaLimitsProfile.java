package io.pigeon.api.ws;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * Small bounds on what one replica holds for its clients, each reached by one class that no other class of this
 * profile comes near, so that the three share one Quarkus start:
 *
 * <ul>
 *   <li>Websockets (ZaqarSocketLimitsTest): 2 frames in flight, 6 sockets, 1 per project, 2 s idle, no server pings,
 *       64 KiB of notifications waiting for one socket. The other classes open no socket.
 *   <li>Waiting claims (LongPollBoundsTest, DepartedWaitersTest, each leaving no waiter behind): 3 waiting on the
 *       replica, 2 per project, 2 per pre-signed grant. The other classes make no claim.
 *   <li>Unread {@code /q/metrics/queues} answers (UnreadAnswersTest): 1 MiB, below one answer of that test, so that a
 *       single client that does not read reaches it; the bound is read once, at start. The other classes read no
 *       per-queue metrics.
 * </ul>
 */
public class SmallReplicaLimitsProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "pigeon.websocket.max-frames-in-flight", "2",
                "pigeon.websocket.max-sockets", "6",
                "pigeon.websocket.max-sockets-per-project", "1",
                "pigeon.websocket.idle-timeout", "2s",
                "pigeon.websocket.ping-interval", "1h",
                "pigeon.websocket.max-pending-notification-bytes", "65536",
                "pigeon.claim-wait.max-waiters", "3",
                "pigeon.claim-wait.max-waiters-per-project", "2",
                "pigeon.signed-url.max-waiters-per-grant", "2",
                "pigeon.queue-metrics.max-unwritten-bytes", "1048576");
    }
}
