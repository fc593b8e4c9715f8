package io.pigeon.claim;

import io.pigeon.config.PigeonConfig;
import io.pigeon.ids.Uuids;
import io.pigeon.message.Message;
import io.pigeon.message.MessageService;
import io.pigeon.message.RequestedIds;
import io.pigeon.message.UnreadableMessages;
import io.pigeon.observability.MessagingOperation;
import io.pigeon.observability.MessagingSpans;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.observability.StatementObservers;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.Ordering;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.pigeon.storage.Coalescer;
import io.pigeon.storage.CoalescingSettings;
import io.pigeon.waiting.QueueWaits;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/** The rules of claims: TTL and grace bounds, claim limits, and what an unknown or ended claim answers. */
@ApplicationScoped
public class ClaimService {

    private final ClaimStore store;
    private final QueueDatabases databases;
    private final MessageService messages;
    private final PigeonConfig config;
    private final QueueMetrics metrics;
    private final UnreadableMessages unreadable;
    /**
     * Claims on the queues of one database arriving while one is being taken there share the next statement: each
     * queue's oldest messages to its first claim.
     */
    private final Coalescer<SqlClient, ClaimStore.Request, ClaimStore.Claimed> claims;

    private final QueueWaits waits;
    private final MessagingSpans spans;

    /** The orderings of the queues this replica last claimed from, so that a claim goes to its statement at once. */
    private final QueueOrderings orderings = new QueueOrderings();

    /**
     * One fifo claim statement per queue in flight from this replica; the claims arriving meanwhile wait without a
     * connection and go together in the next.
     */
    private final FifoClaimTurns<ClaimStore.Request, ClaimStore.Claimed> fifoTurns;

    private final FifoClaimStore fifoStore;

    public ClaimService(
            ClaimStore store,
            QueueDatabases databases,
            MessageService messages,
            PigeonConfig config,
            CoalescingSettings coalescingSettings,
            QueueMetrics metrics,
            StatementObservers statements,
            UnreadableMessages unreadable,
            QueueWaits waits,
            FifoClaimStore fifoStore,
            MessagingSpans spans) {
        this.store = store;
        this.spans = spans;
        this.fifoStore = fifoStore;
        this.fifoTurns = new FifoClaimTurns<>(this::fifoTogether, statements.of("fifo-claim"));
        this.waits = waits;
        this.unreadable = unreadable;
        this.databases = databases;
        this.messages = messages;
        this.config = config;
        this.metrics = metrics;
        this.claims = new Coalescer<>(
                this::takeTogether,
                ClaimStore.Request::limit,
                request -> 0,
                coalescingSettings,
                statements.of("claim"));
    }

    /**
     * Takes claims in one statement on {@code db}; the messages it took that do not open are set aside, queue by queue,
     * before any claim is answered, so that each claim holds exactly the messages its answer lists. This never fails
     * once the statement has committed (a failed set-aside is logged), so the coalescer's rerun of a failed shared
     * statement, request by request, only ever follows a statement that stored nothing.
     */
    private Uni<List<ClaimStore.Claimed>> takeTogether(SqlClient db, List<ClaimStore.Request> requests) {
        return store.create(db, requests, config.maxMessageTtl())
                .call(taken -> setAside(taken.unreadable()))
                .map(ClaimStore.Taken::claims);
    }

    /** Sets aside the unreadable rows of each queue in turn; never fails. */
    private Uni<Void> setAside(List<ClaimStore.Unreadable> queues) {
        Uni<Void> done = Uni.createFrom().voidItem();
        for (ClaimStore.Unreadable rows : queues) {
            done = done.chain(
                    () -> unreadable.setAsideClaimed(rows.queue(), rows.queueId(), rows.rows(), rows.holders()));
        }
        return done;
    }

    /** How many claims wait for the next statement of their database, behind one in flight (for tests). */
    public int claimsWaiting() {
        return claims.waiting();
    }

    /** A newly taken claim: its id and the messages it holds. */
    public record NewClaim(UUID id, List<Message> messages) {}

    /** Claim terms as a request gave them: either may be absent (null), then the defaults apply. */
    public record RequestedTerms(Integer ttl, Integer grace) {
        /** A request that names no terms (a v2 claim without a body). */
        public static final RequestedTerms NONE = new RequestedTerms(null, null);
    }

    /** The requested terms with the defaults in place of what the request left out. */
    public RequestedTerms withDefaults(RequestedTerms requested) {
        return new RequestedTerms(
                requested.ttl() == null ? config.defaultClaimTtl() : requested.ttl(),
                requested.grace() == null ? config.defaultClaimGrace() : requested.grace());
    }

    /** The terms of a new claim: what the request gave, the defaults for the rest, each within its bounds. */
    public ClaimTerms terms(RequestedTerms requested) {
        int ttl = requested.ttl() == null ? config.defaultClaimTtl() : requested.ttl();
        int grace = requested.grace() == null ? config.defaultClaimGrace() : requested.grace();
        requireTtl(ttl);
        requireGrace(grace);
        return new ClaimTerms(ttl, grace);
    }

    /**
     * Claims up to {@code limit} of the oldest free messages; an empty list when none is free, empty when the
     * queue does not exist.
     */
    public Uni<Optional<NewClaim>> take(String project, QueueName queue, Integer limit, ClaimTerms terms) {
        int pageSize = messages.pageSize(limit);
        UUID claimId = UUID.randomUUID();
        return traced(
                project,
                queue,
                PlacedQueue.of(databases, project, queue)
                        .chain(placed -> once(placed, claimId, pageSize, terms))
                        .map(claimed -> claimed.messages().map(taken -> new NewClaim(claimId, taken)))
                        .invoke(claim -> countEmpty(project, queue, claim)));
    }

    /** A claim request answered with no message from an existing queue counts as that queue's empty claim. */
    private void countEmpty(String project, QueueName queue, Optional<NewClaim> claim) {
        if (claim.isPresent() && claim.get().messages().isEmpty()) {
            metrics.emptyClaim(project, queue.value());
        }
    }

    private Uni<ClaimStore.Claimed> once(PlacedQueue placed, UUID claimId, int pageSize, ClaimTerms terms) {
        ClaimStore.Request request = new ClaimStore.Request(placed, claimId, pageSize, terms);
        return metrics.timeClaim(() -> byOrdering(request, orderings.known(placed), true))
                .invoke(claimed -> claimed.messages()
                        .ifPresent(taken -> metrics.claimed(placed.project(), placed.storedName(), taken.size())));
    }

    /**
     * The claim taken with the statement of {@code ordering} (a queue of none shares the coalesced statement; a fifo
     * queue's claims share theirs, one queue's at a time; a fair claim has its own): when the queue turns out to have
     * another ordering, the claim took nothing and is taken once more with the statement of the ordering the answer
     * names, which is remembered for the queue's next claims. Whatever is remembered, the statement decides by the queue's ordering as stored.
     */
    private Uni<ClaimStore.Claimed> byOrdering(ClaimStore.Request request, Ordering ordering, boolean again) {
        Uni<ClaimStore.Claimed> taken =
                switch (ordering) {
                    case NONE -> claims.submit(request.queue().db(), request);
                    case FIFO -> fifoTurns.inTurn(
                            // The database too: a queue deleted and made again on another pool meanwhile is
                            // another queue, and one statement runs on one database.
                            List.of(request.queue().db(), QueueOrderings.key(request.queue())), request);
                    case FAIR -> fair(request);
                };
        return taken.chain(claimed -> {
            if (claimed.messages().isEmpty() || claimed.ordering() == ordering) {
                return Uni.createFrom().item(claimed);
            }
            orderings.remember(request.queue(), claimed.ordering());
            return again
                    ? byOrdering(request, claimed.ordering(), false)
                    : Uni.createFrom().item(claimed);
        });
    }

    private Uni<ClaimStore.Claimed> fair(ClaimStore.Request request) {
        return store.createFair(request, config.maxMessageTtl())
                .call(done -> setAside(done.unreadable()))
                .map(done -> done.claims().get(0));
    }

    /** Claims of one fifo queue taken in one statement (see {@link FifoClaimTurns}). */
    private Uni<List<ClaimStore.Claimed>> fifoTogether(List<ClaimStore.Request> requests) {
        return fifoStore
                .create(requests, config.maxMessageTtl())
                .call(done -> setAside(done.unreadable()))
                .map(ClaimStore.Taken::claims);
    }

    /** How many queues have a fifo claim in flight from this replica (for tests: zero once every answer is in). */
    public int fifoQueuesClaiming() {
        return fifoTurns.busyQueues();
    }

    /** How many fifo claims wait on this replica for their queue's statement (for tests). */
    public int fifoClaimsWaiting() {
        return fifoTurns.waiting();
    }

    /**
     * Claims as {@link #take} does, and when nothing is free waits for a message (Pigeon's long polling): up to
     * {@code wait} seconds, or when null its queue's {@code _claim_wait_seconds} (capped at pigeon.claim-wait.max); 0
     * is Zaqar's claim. The claim is taken only while {@code connected} says the client is there, and a claim taken for
     * a client that left before its answer is released at once. {@code grant}: the signature of the pre-signed URL
     * that admitted the request, whose bound a wait counts against (null: the project's). Empty when the queue does
     * not exist.
     */
    public Uni<Optional<NewClaim>> take(
            String project,
            String grant,
            QueueName queue,
            Integer limit,
            ClaimTerms terms,
            Integer wait,
            BooleanSupplier connected) {
        if (wait != null) {
            requireWait(wait);
        }
        int pageSize = messages.pageSize(limit);
        return traced(
                project,
                queue,
                waitingTake(project, grant, queue, pageSize, terms, wait, connected)
                        .invoke(claim -> countEmpty(project, queue, claim)));
    }

    /** A claim in its messaging span, which counts the messages taken and links to the span that produced each. */
    private Uni<Optional<NewClaim>> traced(String project, QueueName queue, Uni<Optional<NewClaim>> claim) {
        return spans.consuming(
                MessagingOperation.CLAIM,
                project,
                queue.value(),
                claim,
                taken -> taken.map(c -> c.messages().size()).orElse(0),
                taken -> taken.map(c -> Message.producers(c.messages())).orElse(List.of()));
    }

    private Uni<Optional<NewClaim>> waitingTake(
            String project,
            String grant,
            QueueName queue,
            int pageSize,
            ClaimTerms terms,
            Integer wait,
            BooleanSupplier connected) {
        return PlacedQueue.of(databases, project, queue).chain(placed -> {
            long seen = waits.seen(placed);
            UUID claimId = UUID.randomUUID();
            return once(placed, claimId, pageSize, terms).chain(first -> {
                if (first.messages().isEmpty()) {
                    return Uni.createFrom().item(Optional.<NewClaim>empty());
                }
                int seconds =
                        wait != null ? wait : Math.min(Math.max(0, orZero(first.waitDefault())), waits.maxSeconds());
                NewClaim claim = new NewClaim(claimId, first.messages().get());
                if (seconds == 0) {
                    return Uni.createFrom().item(Optional.of(claim));
                }
                if (!claim.messages().isEmpty()) {
                    return connected.getAsBoolean()
                            ? Uni.createFrom().item(Optional.of(claim))
                            : store.release(placed, claimId).replaceWith(Optional.<NewClaim>empty());
                }
                return waits.await(
                                placed,
                                grant,
                                seen,
                                seconds,
                                pageSize,
                                new WaitingClaim(placed, pageSize, terms),
                                connected,
                                new NewClaim(claimId, List.of()))
                        .map(Optional::of);
            });
        });
    }

    private static int orZero(Integer value) {
        return value == null ? 0 : value;
    }

    /** One try of a waiting claim: a claim of its own id each time. */
    private final class WaitingClaim implements QueueWaits.Attempt<NewClaim> {
        private final PlacedQueue placed;
        private final int pageSize;
        private final ClaimTerms terms;

        WaitingClaim(PlacedQueue placed, int pageSize, ClaimTerms terms) {
            this.placed = placed;
            this.pageSize = pageSize;
            this.terms = terms;
        }

        @Override
        public Uni<NewClaim> run() {
            UUID claimId = UUID.randomUUID();
            return once(placed, claimId, pageSize, terms)
                    .map(claimed -> new NewClaim(claimId, claimed.messages().orElse(List.of())));
        }

        @Override
        public int taken(NewClaim outcome) {
            return outcome.messages().size();
        }

        @Override
        public Uni<Void> giveBack(NewClaim outcome) {
            return store.release(placed, outcome.id());
        }
    }

    /** The bounds of a requested wait: 0 to pigeon.claim-wait.max seconds. */
    public void requireWait(int wait) {
        if (wait < 0 || wait > waits.maxSeconds()) {
            throw Rejection.invalidRequest("The \"wait\" value must be an integer from 0 to " + waits.maxSeconds()
                    + " (seconds to wait for a message; pigeon.claim-wait.max).");
        }
    }

    /** The queue's claims in flight, oldest first: at most {@code max-messages-per-page}. */
    public Uni<List<LiveClaim>> inFlight(String project, QueueName queue) {
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> store.live(placed, config.maxMessagesPerPage()));
    }

    /** The live claim; empty when there is no such claim, or it has ended. */
    public Uni<Optional<Claim>> get(String project, QueueName queue, UUID claimId) {
        return PlacedQueue.of(databases, project, queue).chain(placed -> store.get(placed, claimId)
                .map(found -> found.map(read -> {
                    unreadable.leftOut(placed, read.unreadable());
                    return read.claim();
                })));
    }

    /**
     * Renews a live claim: its age restarts and the new TTL (and grace, if given) applies from now. False when
     * there is no such live claim.
     */
    public Uni<Boolean> renew(String project, QueueName queue, UUID claimId, RequestedTerms requested) {
        checkRenewal(requested);
        return PlacedQueue.of(databases, project, queue)
                .chain(placed ->
                        store.renew(placed, claimId, requested.ttl(), requested.grace(), config.maxMessageTtl()));
    }

    /** The bounds of a renewal's terms: a ttl is required. */
    public void checkRenewal(RequestedTerms requested) {
        if (requested.ttl() == null) {
            throw Rejection.invalidBody("Missing \"ttl\" field.");
        }
        int ttl = requested.ttl();
        requireTtl(ttl);
        // Zaqar applies a renewal's grace without its creation bounds (a grace of 30 is accepted), so only
        // the upper bound and non-negativity are checked here.
        Integer grace = requested.grace();
        if (grace != null && (grace < 0 || grace > config.maxClaimGrace())) {
            throw Rejection.invalidRequest("The grace for a claim renewal may not exceed " + config.maxClaimGrace()
                    + " seconds, and may not be negative.");
        }
    }

    /** Releases the claim; releasing an unknown or ended claim is not an error. */
    public Uni<Void> release(String project, QueueName queue, UUID claimId) {
        return spans.around(
                MessagingOperation.RELEASE,
                project,
                queue.value(),
                -1,
                PlacedQueue.of(databases, project, queue).chain(placed -> store.release(placed, claimId)));
    }

    /**
     * The live claim by the id a request names, the same in every version: an id that is not a canonical UUID names
     * no claim. As everywhere, a refusal known before the database is asked is thrown; one the database's answer
     * decides fails the {@code Uni}.
     */
    public Uni<Claim> getNamed(String project, QueueName queue, String claimId) {
        UUID id = Uuids.parseCanonical(claimId).orElseThrow(() -> claimNotFound(project, queue, claimId));
        return get(project, queue, id).map(found -> found.orElseThrow(() -> claimNotFound(project, queue, claimId)));
    }

    /**
     * Renews the claim a request names. The terms are checked before the id, as they were read first: {@link #renew}
     * checks them for a well-formed id, and for an id that names no claim they are checked here before the 404.
     */
    public Uni<Void> renewNamed(String project, QueueName queue, String claimId, RequestedTerms terms) {
        Optional<UUID> id = Uuids.parseCanonical(claimId);
        if (id.isEmpty()) {
            checkRenewal(terms);
            throw claimNotFound(project, queue, claimId);
        }
        return renew(project, queue, id.get(), terms).map(renewed -> {
            if (!renewed) {
                throw claimNotFound(project, queue, claimId);
            }
            return null;
        });
    }

    /**
     * Single messages of a claim to release, as a request named them: their ids (null: not named) and a delay in
     * seconds (null: none).
     */
    public record RequestedRelease(List<String> ids, Integer delay) {}

    /**
     * The bounds of a release: at least one id and no more than a claim can hold (max-messages-per-page), and a delay
     * within the bound of a posted message's.
     */
    public void checkRelease(RequestedRelease requested) {
        if (requested.ids() == null) {
            throw Rejection.invalidBody("Missing \"ids\" field.");
        }
        int named = requested.ids().size();
        if (named < 1 || named > config.maxMessagesPerPage()) {
            throw Rejection.invalidRequest("The \"ids\" field must name at least 1 and at most "
                    + config.maxMessagesPerPage() + " messages (as many as a claim may hold).");
        }
        messages.checkDelay(requested.delay());
    }

    /**
     * Releases single messages of the live claim a request names: they leave the claim, claimable again at once or
     * after the delay, with their claim count kept (see {@link ClaimStore#releaseMessages}); the claim keeps the others.
     * Ids the claim does not hold (any longer, or never) are passed over, as a bulk delete passes over ids of no
     * message. The request is checked before the claim is looked for, as a renewal's terms are.
     */
    public Uni<Void> releaseMessagesNamed(String project, QueueName queue, String claimId, RequestedRelease requested) {
        checkRelease(requested);
        UUID id = Uuids.parseCanonical(claimId).orElseThrow(() -> claimNotFound(project, queue, claimId));
        long[] rowIds = RequestedIds.of(requested.ids()).rowIds();
        int delay = requested.delay() == null ? 0 : requested.delay();
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> store.releaseMessages(placed, id, rowIds, delay))
                .map(found -> {
                    if (!found) {
                        throw claimNotFound(project, queue, claimId);
                    }
                    return null;
                });
    }

    /** Releases the claim a request names; an id that is not a canonical UUID holds nothing to release. */
    public Uni<Void> releaseNamed(String project, QueueName queue, String claimId) {
        Optional<UUID> id = Uuids.parseCanonical(claimId);
        return id.isEmpty() ? Uni.createFrom().voidItem() : release(project, queue, id.get());
    }

    private void requireTtl(int ttl) {
        if (ttl < 60 || ttl > config.maxClaimTtl()) {
            throw Rejection.invalidRequest("The TTL for a claim may not exceed " + config.maxClaimTtl()
                    + " seconds, and must be at least 60 seconds long.");
        }
    }

    private void requireGrace(int grace) {
        if (grace < 60 || grace > config.maxClaimGrace()) {
            throw Rejection.invalidRequest("The grace for a claim may not exceed " + config.maxClaimGrace()
                    + " seconds, and must be at least 60 seconds long.");
        }
    }

    public static Rejection claimNotFound(String project, QueueName queue, String claimId) {
        return Rejection.notFound("Claim " + claimId + " does not exist in queue " + queue + " for project " + project);
    }
}
