package io.pigeon.sqs;

import io.pigeon.claim.ClaimService;
import io.pigeon.config.PigeonConfig;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * SQS's {@code ReceiveRequestAttemptId} on FIFO queues: a ReceiveMessage retried with the attempt id of an earlier one,
 * within 5 minutes, answers that receive's messages and receipt handles again (its visibility set again), as long as
 * it still holds them as it left them; once a message of it was deleted, made visible or given another visibility, or
 * its visibility ended, the id is spent ({@code InvalidParameterValue}, AWS's answer to a retry that can no longer
 * be one). An id not remembered takes new messages and is remembered with them. A standard queue ignores the
 * parameter, as SQS does. The SQL is {@link ReceiveAttemptStore}'s.
 */
@ApplicationScoped
public class ReceiveAttempts {

    private final ReceiveAttemptStore store;
    private final PigeonConfig config;
    private final SqsSettings settings;
    private final QueueDatabases databases;
    private final ClaimService claims;

    public ReceiveAttempts(
            ReceiveAttemptStore store,
            PigeonConfig config,
            SqsSettings settings,
            QueueDatabases databases,
            ClaimService claims) {
        this.store = store;
        this.claims = claims;
        this.databases = databases;
        this.config = config;
        this.settings = settings;
    }

    /**
     * The receive {@code attemptId} (null: none) stands for on queue {@code name} of {@code project}: the remembered one replayed with
     * {@code visibilitySeconds}, else the claim {@code take} makes (empty: no queue), remembered under the id when it
     * took messages.
     */
    Uni<Optional<ClaimService.NewClaim>> received(
            String project,
            QueueName name,
            String attemptId,
            int visibilitySeconds,
            Supplier<Uni<Optional<ClaimService.NewClaim>>> take) {
        if (attemptId == null || !SqsQueueNames.isFifo(name)) {
            return take.get();
        }
        return databases
                .of(project, name.value())
                .chain(pool ->
                        received(pool, new PlacedQueue(pool, project, name), attemptId, visibilitySeconds, take));
    }

    private Uni<Optional<ClaimService.NewClaim>> received(
            Pool pool,
            PlacedQueue queue,
            String attemptId,
            int visibilitySeconds,
            Supplier<Uni<Optional<ClaimService.NewClaim>>> take) {
        int bound = settings.maxReceiveAttemptsPerProject();
        return store.replay(queue, attemptId, visibilitySeconds, config.maxMessageTtl(), bound)
                .chain(replay -> {
                    if (replay instanceof ReceiveAttemptStore.Replayed replayed) {
                        return Uni.createFrom().item(Optional.of(replayed.claim()));
                    }
                    if (replay instanceof ReceiveAttemptStore.Spent) {
                        throw spent(attemptId);
                    }
                    if (replay instanceof ReceiveAttemptStore.NotRemembered notRemembered) {
                        if (notRemembered.atBound()) {
                            throw overLimit(bound);
                        }
                        return take.get()
                                .call(taken -> taken.isEmpty()
                                                || taken.get().messages().isEmpty()
                                        ? Uni.createFrom().voidItem()
                                        : remembered(pool, queue, attemptId, taken.get(), bound));
                    }
                    return Uni.createFrom().item(Optional.<ClaimService.NewClaim>empty());
                });
    }

    /**
     * Remembers what {@code claim} took under {@code attemptId}; when concurrent receives with new ids filled the
     * project's bound since it was checked, gives the messages back and refuses the receive, as one refused before
     * taking anything is: a receive answered is always one its retries can repeat.
     */
    private Uni<Void> remembered(
            Pool pool, PlacedQueue queue, String attemptId, ClaimService.NewClaim claim, int bound) {
        return store.remember(pool, queue, attemptId, claim, bound).chain(room -> {
            if (room) {
                return Uni.createFrom().voidItem();
            }
            return claims.release(queue.project(), queue.name(), claim.id()).invoke(() -> {
                throw overLimit(bound);
            });
        });
    }

    /** AWS's answer to a retry whose receive can no longer be repeated. */
    private static SqsRefusal spent(String attemptId) {
        return SqsRefusal.invalidParameter(
                "ReceiveRequestAttemptId",
                attemptId,
                "The receiveRequestAttemptId is not valid anymore since the receive call is not retryable.");
    }

    private static SqsRefusal overLimit(int bound) {
        return new SqsRefusal(
                SqsRefusal.Reason.OVER_LIMIT,
                "Too many ReceiveRequestAttemptIds remembered for this account: at most " + bound
                        + " within 5 minutes (pigeon.sqs.max-receive-attempts-per-project).");
    }
}
