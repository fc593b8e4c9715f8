package io.pigeon.sqs;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.config.PigeonConfig;
import io.pigeon.json.StrictJson;
import io.pigeon.message.MessageService;
import io.pigeon.message.QueueStats;
import io.pigeon.pool.QueueDatabases;
import io.pigeon.purge.QueuePurge;
import io.pigeon.queue.PlacedQueue;
import io.pigeon.queue.QueueName;
import io.pigeon.queue.QueueService;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The SQS queue actions' rules, over the services Zaqar's API uses (one store, one set of rules): creation with SQS's
 * idempotence (the same attributes give the same queue, others {@code QueueAlreadyExists}), existence as SQS answers
 * it, attributes and tags on the queue's metadata ({@link QueueAttributes}, {@link QueueTags}), counts from the
 * queue's statistics, purge and delete as Zaqar's. Listings are in {@link SqsQueueListings}.
 */
@ApplicationScoped
public class SqsQueues {

    /** The attributes only read, in the order GetQueueAttributes shows them before the settable ones. */
    static final List<String> READ_ONLY = List.of(
            "QueueArn",
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
            "CreatedTimestamp",
            "LastModifiedTimestamp");

    private final QueueService queues;
    private final MessageService messages;
    private final QueuePurge purge;
    private final QueueDatabases databases;
    private final SqsQueueStore store;
    private final QueueAttributes attributes;
    private final PigeonConfig config;

    public SqsQueues(
            QueueService queues,
            MessageService messages,
            QueuePurge purge,
            QueueDatabases databases,
            SqsQueueStore store,
            QueueAttributes attributes,
            PigeonConfig config) {
        this.config = config;
        this.queues = queues;
        this.messages = messages;
        this.purge = purge;
        this.databases = databases;
        this.store = store;
        this.attributes = attributes;
    }

    /**
     * Creates the queue, or finds it when it exists with the attributes given ({@code QueueAlreadyExists} when one
     * differs); tags are set only on a new queue, as SQS does.
     */
    public Uni<QueueName> create(
            String project, String account, String name, Map<String, String> given, Map<String, String> tags) {
        QueueName queue = SqsQueueNames.of(name);
        QueueAttributes.Changes changes = attributes.creation(given, account, queue);
        QueueTags.check(tags);
        ObjectNode metadata = QueueTags.tagged(changes.applyTo(JsonNodeFactory.instance.objectNode()), name, tags);
        if (metadata.toString().getBytes(StandardCharsets.UTF_8).length > config.maxQueueMetadata()) {
            throw SqsRefusal.invalidParameter(
                    "tags",
                    String.valueOf(tags.size()),
                    "the queue's attributes and tags take more than pigeon.max-queue-metadata ("
                            + config.maxQueueMetadata() + " bytes).");
        }
        return deadLetterQueueExists(project, changes)
                .chain(() -> queues.metadata(project, queue))
                .chain(found -> {
                    if (found.isPresent()) {
                        return sameAttributes(found.get(), given, account, queue);
                    }
                    return queues.create(project, queue, metadata)
                            .chain(created -> created
                                    ? Uni.createFrom().item(queue)
                                    : queues.metadata(project, queue)
                                            .chain(raced -> sameAttributes(
                                                    raced.orElseThrow(SqsRefusal::queueDoesNotExist),
                                                    given,
                                                    account,
                                                    queue)));
                });
    }

    private Uni<QueueName> sameAttributes(
            String metadataJson, Map<String, String> given, String account, QueueName queue) {
        ObjectNode current = StrictJson.readStoredObject(metadataJson);
        boolean fifo = SqsQueueNames.isFifo(queue);
        Map<String, String> now = attributes.values(current, account, fifo);
        Map<String, String> asked =
                attributes.values(attributes.asked(given, account, queue).applyTo(current.deepCopy()), account, fifo);
        if (!now.equals(asked)) {
            throw new SqsRefusal(
                    SqsRefusal.Reason.QUEUE_NAME_EXISTS,
                    "A queue already exists with the same name and a different value for attribute "
                            + firstDifference(now, asked) + ".");
        }
        return Uni.createFrom().item(queue);
    }

    private static String firstDifference(Map<String, String> now, Map<String, String> asked) {
        for (Map.Entry<String, String> value : asked.entrySet()) {
            if (!value.getValue().equals(now.get(value.getKey()))) {
                return value.getKey();
            }
        }
        return now.keySet().stream()
                .filter(key -> !asked.containsKey(key))
                .findFirst()
                .orElse("");
    }

    /** The queue, when the caller has it; {@code QueueDoesNotExist} otherwise. */
    public Uni<QueueName> existing(String project, QueueName queue) {
        return queues.exists(project, queue).map(exists -> {
            if (!exists) {
                throw SqsRefusal.queueDoesNotExist();
            }
            return queue;
        });
    }

    public Uni<Void> delete(String project, QueueName queue) {
        return existing(project, queue).chain(() -> queues.delete(project, queue));
    }

    /** Deletes every message of the queue, as Zaqar's purge does (its subscriptions stay). */
    public Uni<Void> purge(String project, QueueName queue) {
        return existing(project, queue).chain(() -> purge.purge(project, queue, true, false));
    }

    /**
     * The attributes named (every one for {@code All}) that the queue has: an unknown name is
     * {@code InvalidAttributeName}; one Pigeon does not serve is simply not shown, as SQS leaves out what is not set.
     */
    public Uni<Map<String, String>> attributes(String project, String account, QueueName queue, List<String> names) {
        boolean all = names.contains("All");
        for (String name : names) {
            if (!name.equals("All")
                    && !READ_ONLY.contains(name)
                    && !QueueAttributes.SETTABLE.contains(name)
                    && !QueueAttributes.NOT_SERVED.contains(name)
                    && !FifoAttributes.NAMES.contains(name)) {
                throw SqsRefusal.unknownAttribute(name);
            }
        }
        boolean counts = all || names.stream().anyMatch(name -> name.startsWith("ApproximateNumberOf"));
        return PlacedQueue.of(databases, project, queue).chain(placed -> store.describe(placed)
                .map(found -> found.orElseThrow(SqsRefusal::queueDoesNotExist))
                .chain(described -> (counts
                                ? messages.stats(placed)
                                : Uni.createFrom().item(Optional.<QueueStats>empty()))
                        .map(stats -> shown(account, queue, described, stats.orElse(null), names, all))));
    }

    private Map<String, String> shown(
            String account,
            QueueName queue,
            SqsQueueStore.Described described,
            QueueStats stats,
            List<String> names,
            boolean all) {
        Map<String, String> every = new LinkedHashMap<>();
        every.put("QueueArn", attributes.arn(account, queue.value()));
        if (stats != null) {
            every.put("ApproximateNumberOfMessages", Long.toString(Math.max(0, stats.free() - stats.delayed())));
            every.put("ApproximateNumberOfMessagesNotVisible", Long.toString(stats.claimed()));
            every.put("ApproximateNumberOfMessagesDelayed", Long.toString(stats.delayed()));
        }
        every.put("CreatedTimestamp", Long.toString(described.created()));
        every.put("LastModifiedTimestamp", Long.toString(described.modified()));
        every.putAll(attributes.values(
                StrictJson.readStoredObject(described.metadataJson()), account, SqsQueueNames.isFifo(queue)));
        if (all) {
            return every;
        }
        Map<String, String> asked = new LinkedHashMap<>();
        for (String name : names) {
            if (every.containsKey(name)) {
                asked.put(name, every.get(name));
            }
        }
        return asked;
    }

    /** Sets the attributes given; nothing changes if one is refused. */
    public Uni<Void> setAttributes(String project, String account, QueueName queue, Map<String, String> given) {
        QueueAttributes.Changes changes = attributes.changes(given, account, SqsQueueNames.isFifo(queue));
        return deadLetterQueueExists(project, changes)
                .chain(() -> change(project, queue, metadata -> {
                    FifoAttributes.checkCombination(changes.keys(), metadata);
                    return changes.applyTo(metadata);
                }));
    }

    public Uni<Map<String, String>> tags(String project, QueueName queue) {
        return queues.metadata(project, queue)
                .map(found ->
                        QueueTags.of(StrictJson.readStoredObject(found.orElseThrow(SqsRefusal::queueDoesNotExist))));
    }

    public Uni<Void> tag(String project, QueueName queue, Map<String, String> added) {
        QueueTags.check(added);
        return change(project, queue, metadata -> QueueTags.tagged(metadata, queue.name(), added));
    }

    public Uni<Void> untag(String project, QueueName queue, Collection<String> keys) {
        return change(project, queue, metadata -> QueueTags.untagged(metadata, keys));
    }

    private Uni<Void> change(String project, QueueName queue, UnaryOperator<ObjectNode> change) {
        return queues.changeMetadata(project, queue, change).map(changed -> {
            if (changed.isEmpty()) {
                throw SqsRefusal.queueDoesNotExist();
            }
            return null;
        });
    }

    /** SQS refuses a redrive policy naming a queue that does not exist. */
    private Uni<Void> deadLetterQueueExists(String project, QueueAttributes.Changes changes) {
        if (changes.deadLetterQueue() == null) {
            return Uni.createFrom().voidItem();
        }
        return queues.exists(project, changes.deadLetterQueue()).map(exists -> {
            if (!exists) {
                throw SqsRefusal.invalidAttributeValue("RedrivePolicy", "Dead letter target does not exist.");
            }
            return null;
        });
    }
}
