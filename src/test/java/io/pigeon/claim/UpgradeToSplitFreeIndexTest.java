package io.pigeon.claim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.message.Message;
import io.pigeon.pool.PoolUri;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.testing.Db;
import io.pigeon.testing.Migrations;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.util.List;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Upgrading a database that holds free, delayed and claimed messages to the version where free messages are found
 * through two indexes split by delay (migration V26): claims go on taking what is free (ended claims' messages
 * included, delayed ones only once due, live claims' never), oldest first, and release and renewal still reach their
 * rows.
 */
@QuarkusTest
class UpgradeToSplitFreeIndexTest {

    private static final int MAX_MESSAGE_TTL = 1_209_600;

    @Inject
    Pool pool;

    @Inject
    Flyway application;

    @Inject
    Vertx vertx;

    @Inject
    ClaimStore claims;

    @Test
    void claimsOfTheVersionBeforeKeepTheirRules() {
        PoolUri uri = PoolUri.parse(Db.newDatabase(pool));
        Migrations.migrate(application, uri, "25");
        Pool older = Migrations.open(vertx, uri);
        try {
            Db.run(older, "INSERT INTO queues (project, name) VALUES ('p', 'orders')");
            // Ids 1-3: held by a live claim; 4-5: by a claim that has ended; 6-7: delayed an hour; 8: delayed, due;
            // 9-10: free.
            Db.run(
                    older,
                    """
                    INSERT INTO messages (queue_id, client_id, ttl, body, expires_at, visible_at)
                    SELECT 1, gen_random_uuid(), 600, '{"n": ' || n || '}', now() + interval '600 seconds',
                           CASE WHEN n IN (6, 7) THEN now() + interval '1 hour'
                                WHEN n = 8 THEN now() - interval '1 second' END
                    FROM generate_series(1, 10) AS n ORDER BY n""");
            UUID live = UUID.randomUUID();
            UUID ended = UUID.randomUUID();
            Db.run(
                    older,
                    """
                    UPDATE messages SET claim_id = $1, claim_expires_at = now() + interval '300 seconds', claim_count = 1
                    WHERE id IN (1, 2, 3)""",
                    live);
            Db.run(
                    older,
                    """
                    UPDATE messages SET claim_id = $1, claim_expires_at = now() - interval '1 second', claim_count = 1
                    WHERE id IN (4, 5)""",
                    ended);
            Db.run(
                    older,
                    """
                    INSERT INTO claims (id, queue_id, ttl, grace, expires_at, message_ids)
                    VALUES ($1, 1, 300, 60, now() + interval '300 seconds', '{1,2,3}'),
                           ($2, 1, 300, 60, now() - interval '1 second', '{4,5}')""",
                    live,
                    ended);

            Migrations.migrate(application, uri, "latest");
            assertEquals(
                    "messages_claim_deadline messages_free_delayed messages_free_ready",
                    Db.run(
                                    older,
                                    "SELECT string_agg(indexname, ' ' ORDER BY indexname) FROM pg_indexes "
                                            + "WHERE indexname LIKE 'messages_free%' OR indexname = 'messages_claim_deadline'")
                            .iterator()
                            .next()
                            .getString(0));

            PlacedQueue orders = new PlacedQueue(older, "p", QueueName.of("orders"));
            UUID taken = UUID.randomUUID();
            List<Message> messages = claimTen(orders, taken);
            assertEquals(
                    List.of(4L, 5L, 8L, 9L, 10L),
                    messages.stream().map(Message::id).toList(),
                    "the ended claim's, the due delayed and the free messages, oldest first");
            assertEquals(
                    List.of(2, 2, 1, 1, 1),
                    messages.stream().map(Message::claimCount).toList());
            // Renewal past the messages' lifetimes extends them; release frees what the claim took.
            assertTrue(claims.renew(orders, taken, 900, 60, MAX_MESSAGE_TTL)
                    .await()
                    .indefinitely());
            assertEquals(
                    5,
                    Db.count(
                            older,
                            "SELECT count(*) FROM messages WHERE claim_id = $1 AND ttl >= 960"
                                    + " AND expires_at = created_at + ttl * interval '1 second'",
                            taken));
            claims.release(orders, taken).await().indefinitely();
            List<Message> retaken = claimTen(orders, UUID.randomUUID());
            assertEquals(
                    List.of(4L, 5L, 8L, 9L, 10L),
                    retaken.stream().map(Message::id).toList());
            assertTrue(claims.get(orders, live).await().indefinitely().isPresent(), "the live claim is kept");
        } finally {
            older.closeAndAwait();
        }
    }

    /** A claim of up to 10 messages of {@code queue} for 60 s (grace 60 s), as the API would take it. */
    private List<Message> claimTen(PlacedQueue queue, UUID claimId) {
        return claims.create(
                        queue.db(),
                        List.of(new ClaimStore.Request(queue, claimId, 10, new ClaimTerms(60, 60))),
                        MAX_MESSAGE_TTL)
                .await()
                .indefinitely()
                .answers()
                .get(0)
                .orElseThrow();
    }
}
