package io.pigeon.sqs;

import io.pigeon.claim.ClaimService;
import io.pigeon.claim.ClaimTerms;
import io.pigeon.dispatch.DispatchService;
import io.pigeon.encryption.MessageCipher;
import io.pigeon.json.StrictJson;
import io.pigeon.message.Message;
import io.pigeon.message.MessageIds;
import io.pigeon.message.MessageService;
import io.pigeon.message.MessageStore;
import io.pigeon.observability.QueueMetrics;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.waiting.QueueWaits;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * SQS's SendMessage, SendMessageBatch and ReceiveMessage on Zaqar's queues (decision 0019): a send is a post to an
 * existing queue that stores the body as a JSON string and the attributes beside it (one statement, every rule of a
 * Zaqar post); a receive is a Zaqar claim (the claim's TTL is the visibility timeout, with no grace) on the same
 * long-poll, answering each message with a receipt handle ({@link ReceiptHandles}). Every refusal is an
 * {@link SqsRefusal} with AWS's code; a message sent here can be claimed through Zaqar and the other way round.
 */
@ApplicationScoped
public class SqsMessages {

    public static final int MAX_VISIBILITY_TIMEOUT = 43_200;
    public static final int MAX_DELAY_SECONDS = 900;
    public static final int MAX_WAIT_SECONDS = 20;
    public static final int MAX_RECEIVE = 10;
    /** SQS's bound on the sum of a batch's message sizes: 1 MiB, whatever each queue's own limit. */
    public static final int MAX_BATCH_BYTES = 1_048_576;

    private final SqsMessageStore store;
    private final MessageService posts;
    private final QueueDatabases databases;
    private final ClaimService claims;
    private final QueueWaits waits;
    private final ReceiptHandles handles;
    private final QueueMetrics metrics;
    private final DispatchService deliveries;
    private final SqsSealing sealing;
    private final SqsQueueStore queueStore;
    private final FifoSends fifoSends;
    private final ReceiveAttempts attempts;

    public SqsMessages(
            SqsMessageStore store,
            MessageService posts,
            SqsQueueStore queueStore,
            QueueDatabases databases,
            ClaimService claims,
            QueueWaits waits,
            ReceiptHandles handles,
            QueueMetrics metrics,
            DispatchService deliveries,
            MessageCipher cipher,
            FifoSends fifoSends,
            ReceiveAttempts attempts) {
        this.fifoSends = fifoSends;
        this.attempts = attempts;
        this.store = store;
        this.posts = posts;
        this.queueStore = queueStore;
        this.databases = databases;
        this.claims = claims;
        this.waits = waits;
        this.handles = handles;
        this.metrics = metrics;
        this.deliveries = deliveries;
        this.sealing = new SqsSealing(cipher);
    }

    /**
     * A message checked and ready to store: as sent, its attributes read, its size, and what SendMessage answers for
     * it.
     */
    record Checked(
            OutgoingMessage message,
            MessageAttributes attributes,
            MessageAttributes system,
            long size,
            SentMessage answer) {

        /**
         * The message as stored, with its deduplication id (null: none) beside its attributes, and the request's
         * {@code X-Amzn-Trace-Id} as its {@code AWSTraceHeader} when it sent none (not in the answer's digest, which
         * is of what the message sent).
         */
        SqsMessageStore.Outgoing outgoing(String deduplicationId) {
            MessageAttributes stored = MessageAttributes.storedWithRequestHeader(system, message.requestTraceHeader());
            return new SqsMessageStore.Outgoing(
                    message.delaySeconds(),
                    SqsBodies.stored(message.body()),
                    new StoredAttributes(attributes, stored, deduplicationId).text(),
                    message.groupId(),
                    XRayTraceHeaders.context(stored.byName().get(MessageAttributes.TRACE_HEADER)));
        }
    }

    private static Checked checked(OutgoingMessage message, boolean fifo) {
        SqsBodies.check(message.body());
        MessageAttributes attributes = MessageAttributes.of(message.attributes());
        MessageAttributes system = MessageAttributes.systemAttributes(message.systemAttributes());
        Integer delay = message.delaySeconds();
        if (delay != null && (delay < 0 || delay > MAX_DELAY_SECONDS)) {
            throw SqsRefusal.invalidValue("Value " + delay + " for parameter DelaySeconds is invalid. Reason: must be"
                    + " between 0 and " + MAX_DELAY_SECONDS + ", if provided.");
        }
        MessageGroupRules.check(message, fifo);
        long size = SqsBodies.size(message.body()) + attributes.size() + system.size();
        return new Checked(
                message,
                attributes,
                system,
                size,
                new SentMessage(
                        null,
                        MessageDigests.ofBody(message.body()),
                        MessageDigests.ofAttributes(attributes),
                        MessageDigests.ofAttributes(system)));
    }

    private static SqsRefusal tooLong(int maxSize) {
        return SqsRefusal.invalidValue(
                "One or more parameters are invalid. Reason: Message must be shorter than " + maxSize + " bytes.");
    }

    static SqsRefusal tooLongFor(int maxSize) {
        return tooLong(maxSize);
    }

    static SqsRefusal noQueue() {
        return SqsRefusal.queueDoesNotExist();
    }

    /**
     * SendMessage: stores one message in the existing queue, sent by {@code clientId} (its {@code SenderId}; the door
     * chooses it for the caller, as Zaqar's {@code Client-ID} is chosen by the client).
     */
    public Uni<SentMessage> send(String project, QueueName queue, UUID clientId, OutgoingMessage message) {
        boolean fifo = SqsQueueNames.isFifo(queue);
        Checked checked = checked(message, fifo);
        if (fifo) {
            return fifoSends.sendOne(project, queue, clientId, checked, true);
        }
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> stored(placed, clientId, List.of(checked)))
                .map(sent -> {
                    if (sent.maxSize() == null) {
                        throw noQueue();
                    }
                    if (sent.ids().length == 0) {
                        throw tooLong(sent.maxSize());
                    }
                    return withId(checked.answer(), sent.ids()[0]);
                })
                .onFailure(MessageStore::isDeduplicationNeeded)
                .recoverWithUni(needed -> fifoSends.sendOne(project, queue, clientId, checked, false));
    }

    /**
     * SendMessageBatch: each entry checked alone (one refused does not stop the others), the accepted ones stored in
     * one statement; an entry over the queue's size limit is refused and the others stored. The whole request is
     * refused when the batch breaks the batch rules, its messages together pass {@value #MAX_BATCH_BYTES} bytes
     * ({@code BatchRequestTooLong}) or the queue does not exist.
     */
    public Uni<List<EntryOutcome<SentMessage>>> sendBatch(
            String project, QueueName queue, UUID clientId, List<BatchEntry<OutgoingMessage>> entries) {
        BatchRules.check("SendMessageBatch", entries);
        boolean fifo = SqsQueueNames.isFifo(queue);
        Map<String, Object> checkedOrRefused = new LinkedHashMap<>();
        long total = 0;
        for (BatchEntry<OutgoingMessage> entry : entries) {
            try {
                Checked checked = checked(entry.request(), fifo);
                total += checked.size();
                checkedOrRefused.put(entry.id(), checked);
            } catch (SqsRefusal refusal) {
                checkedOrRefused.put(entry.id(), refusal);
            }
        }
        if (total > MAX_BATCH_BYTES) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.BATCH_REQUEST_TOO_LONG,
                    "Batch requests cannot be longer than " + MAX_BATCH_BYTES + " bytes. You have sent " + total
                            + " bytes.");
        }
        List<String> ids = new ArrayList<>();
        List<Checked> accepted = new ArrayList<>();
        checkedOrRefused.forEach((id, outcome) -> {
            if (outcome instanceof Checked checked) {
                ids.add(id);
                accepted.add(checked);
            }
        });
        if (fifo) {
            return fifoSends.sendBatch(project, queue, clientId, ids, accepted, checkedOrRefused, true);
        }
        return PlacedQueue.of(databases, project, queue)
                .chain(placed -> accepted.isEmpty()
                        ? Uni.createFrom().item(new MessageStore.Posted(0, new long[0], 0))
                        : storedWithin(placed, clientId, ids, accepted, checkedOrRefused))
                .map(sent -> {
                    if (sent.maxSize() == null) {
                        throw noQueue();
                    }
                    List<EntryOutcome<SentMessage>> outcomes = new ArrayList<>(entries.size());
                    int next = 0;
                    for (Map.Entry<String, Object> entry : checkedOrRefused.entrySet()) {
                        if (entry.getValue() instanceof Checked checked) {
                            outcomes.add(EntryOutcome.succeeded(
                                    entry.getKey(), withId(checked.answer(), sent.ids()[next++])));
                        } else {
                            outcomes.add(EntryOutcome.failed(entry.getKey(), (SqsRefusal) entry.getValue()));
                        }
                    }
                    return outcomes;
                })
                .onFailure(MessageStore::isDeduplicationNeeded)
                .recoverWithUni(needed ->
                        fifoSends.sendBatch(project, queue, clientId, ids, accepted, checkedOrRefused, false));
    }

    /**
     * Stores the accepted entries; when one is over the queue's limit (then nothing was stored), refuses those over
     * it in {@code outcomes} and stores the rest.
     */
    private Uni<MessageStore.Posted> storedWithin(
            PlacedQueue placed, UUID clientId, List<String> ids, List<Checked> accepted, Map<String, Object> outcomes) {
        return stored(placed, clientId, accepted).chain(sent -> {
            if (sent.maxSize() == null || sent.ids().length == accepted.size()) {
                return Uni.createFrom().item(sent);
            }
            List<Checked> fitting = new ArrayList<>();
            for (int i = 0; i < accepted.size(); i++) {
                if (accepted.get(i).size() > sent.maxSize()) {
                    outcomes.put(ids.get(i), tooLong(sent.maxSize()));
                } else {
                    fitting.add(accepted.get(i));
                }
            }
            return fitting.isEmpty()
                    ? Uni.createFrom().item(new MessageStore.Posted(sent.maxSize(), new long[0], 0))
                    : stored(placed, clientId, fitting);
        });
    }

    /** Stores the messages as a post to the existing queue, sharing a statement with those arriving together. */
    private Uni<MessageStore.Posted> stored(PlacedQueue placed, UUID clientId, List<Checked> messages) {
        int largest =
                (int) Math.min(messages.stream().mapToLong(Checked::size).max().orElse(0), Integer.MAX_VALUE);
        List<SqsMessageStore.Outgoing> outgoing =
                messages.stream().map(checked -> checked.outgoing(null)).toList();
        return sealing.sealedAsTheQueueAsks(
                        placed,
                        outgoing,
                        (toStore, keyId) -> posts.send(
                                placed,
                                keyId,
                                clientId,
                                toStore.stream()
                                        .map(SqsMessageStore.Outgoing::message)
                                        .toList(),
                                toStore.stream()
                                        .map(SqsMessageStore.Outgoing::attributes)
                                        .toList(),
                                largest))
                .call(sent -> {
                    metrics.posted(placed.project(), placed.storedName(), sent.ids().length);
                    return deliveries.notificationsQueued(placed.db(), sent.notifications());
                });
    }

    static SentMessage withId(SentMessage answer, long id) {
        return new SentMessage(
                MessageIds.format(id),
                answer.md5OfMessageBody(),
                answer.md5OfMessageAttributes(),
                answer.md5OfMessageSystemAttributes());
    }

    /**
     * ReceiveMessage: a claim of up to {@code maxMessages} (Zaqar's claim, its TTL the visibility timeout, no grace),
     * waiting on the queue's long-poll when nothing is free; {@code connected} says whether the caller is still there
     * (a claim taken for one that left is released). Each message comes with its receipt handle and what was asked.
     */
    public Uni<List<ReceivedMessage>> receive(
            String project, QueueName queue, ReceiveRequest request, BooleanSupplier connected) {
        int max = request.maxMessages() == null ? 1 : request.maxMessages();
        if (max < 1 || max > MAX_RECEIVE) {
            throw SqsRefusal.invalidValue("Value " + max + " for parameter MaxNumberOfMessages is invalid. Reason:"
                    + " must be between 1 and " + MAX_RECEIVE + ", if provided.");
        }
        Integer asked = request.visibilityTimeout();
        if (asked != null && (asked < 0 || asked > MAX_VISIBILITY_TIMEOUT)) {
            throw SqsRefusal.invalidValue("Value " + asked + " for parameter VisibilityTimeout is invalid."
                    + " Reason: must be between 0 and " + MAX_VISIBILITY_TIMEOUT + ", if provided.");
        }
        Integer wait = request.waitSeconds();
        if (wait != null && (wait < 0 || wait > MAX_WAIT_SECONDS)) {
            throw SqsRefusal.invalidValue("Value " + wait + " for parameter WaitTimeSeconds is invalid. Reason: must"
                    + " be between 0 and " + MAX_WAIT_SECONDS + ", if provided.");
        }
        // pigeon.claim-wait.max bounds every wait on this replica, an SQS one too.
        Integer waitFor = wait == null ? null : Math.min(wait, waits.maxSeconds());
        Uni<Integer> visibility = asked != null ? Uni.createFrom().item(asked) : queueVisibility(project, queue);
        return visibility
                .chain(seconds -> attempts.received(
                        project,
                        queue,
                        request.attemptId(),
                        seconds,
                        () -> claims.take(project, null, queue, max, new ClaimTerms(seconds, 0), waitFor, connected)))
                .chain(taken -> {
                    if (taken.isEmpty()) {
                        throw noQueue();
                    }
                    ClaimService.NewClaim claim = taken.get();
                    if (claim.messages().isEmpty()) {
                        return Uni.createFrom().item(List.<ReceivedMessage>of());
                    }
                    return PlacedQueue.of(databases, project, queue).chain(placed -> answered(placed, claim, request));
                });
    }

    /**
     * The queue's own {@code VisibilityTimeout}, for a receive that names none (SQS's rule: the queue's value, 30 s
     * when it sets none); {@code QueueDoesNotExist} when there is no such queue.
     */
    private Uni<Integer> queueVisibility(String project, QueueName queue) {
        return PlacedQueue.of(databases, project, queue)
                .chain(queueStore::describe)
                .map(found -> found.map(described -> QueueAttributes.visibilityTimeout(
                                StrictJson.readStoredObject(described.metadataJson())))
                        .orElseThrow(SqsMessages::noQueue));
    }

    private Uni<List<ReceivedMessage>> answered(
            PlacedQueue placed, ClaimService.NewClaim claim, ReceiveRequest request) {
        Collection<String> system = request.attributeNames() == null ? List.of() : request.attributeNames();
        Collection<String> named =
                request.messageAttributeNames() == null ? List.of() : request.messageAttributeNames();
        boolean extrasNeeded = !named.isEmpty() || SystemAttributes.needStoredRow(system);
        long[] ids = claim.messages().stream().mapToLong(Message::id).toArray();
        Uni<Map<Long, SqsMessageStore.Extras>> extras =
                extrasNeeded ? store.received(placed, ids) : Uni.createFrom().item(Map.of());
        return handles.signer()
                .chain(signer -> extras.map(byId -> {
                    List<ReceivedMessage> received = new ArrayList<>(ids.length);
                    for (Message message : claim.messages()) {
                        SqsMessageStore.Extras stored = byId.get(message.id());
                        StoredAttributes attributes = stored == null
                                ? StoredAttributes.NONE
                                : StoredAttributes.read(sealing.opened(placed, stored.keyId(), stored.attributes()));
                        MessageAttributes returned = attributes.message().selected(named);
                        String body = SqsBodies.received(message.body());
                        received.add(new ReceivedMessage(
                                MessageIds.format(message.id()),
                                signer.handle(
                                        placed.project(),
                                        placed.storedName(),
                                        new Receipt(message.id(), claim.id(), message.claimCount())),
                                body,
                                MessageDigests.ofBody(body),
                                SystemAttributes.of(system, message, stored, attributes, placed.name()),
                                returned,
                                MessageDigests.ofAttributes(returned)));
                    }
                    return received;
                }));
    }
}
