package io.pigeon.api.sqs;

import io.pigeon.queue.QueueName;
import io.pigeon.sqs.SqsQueueListings;
import io.pigeon.sqs.SqsQueueNames;
import io.pigeon.sqs.SqsQueues;
import io.pigeon.sqs.SqsRefusal;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;

/**
 * The queue actions: each reads its input by AWS's member names (JSON name, then the query protocol's), calls
 * {@link SqsQueues} or {@link SqsQueueListings}, and writes AWS's output shape. No rule lives here.
 */
@ApplicationScoped
public class SqsQueueActions implements SqsActionSet {

    private final SqsQueues queues;
    private final SqsQueueListings listings;

    SqsQueueActions(SqsQueues queues, SqsQueueListings listings) {
        this.queues = queues;
        this.listings = listings;
    }

    @Override
    public void register(Map<String, SqsAction> actions) {
        actions.put("CreateQueue", this::createQueue);
        actions.put("GetQueueUrl", this::getQueueUrl);
        actions.put("ListQueues", this::listQueues);
        actions.put("DeleteQueue", this::deleteQueue);
        actions.put("PurgeQueue", this::purgeQueue);
        actions.put("GetQueueAttributes", this::getQueueAttributes);
        actions.put("SetQueueAttributes", this::setQueueAttributes);
        actions.put("TagQueue", this::tagQueue);
        actions.put("UntagQueue", this::untagQueue);
        actions.put("ListQueueTags", this::listQueueTags);
        actions.put("ListDeadLetterSourceQueues", this::listDeadLetterSourceQueues);
    }

    private Uni<SqsAnswer> createQueue(SqsCall call) {
        SqsParameters in = call.parameters();
        String name = in.required("QueueName");
        Map<String, String> attributes = attributes(in);
        Map<String, String> tags = in.map("tags", "Tag", "Key", "Value");
        return queues.create(call.project(), call.account(), name, attributes, tags)
                .map(queue -> SqsAnswer.result().string("QueueUrl", call.queueUrl(queue)));
    }

    private Uni<SqsAnswer> getQueueUrl(SqsCall call) {
        SqsParameters in = call.parameters();
        QueueName queue = SqsQueueNames.of(in.required("QueueName"));
        // Another account's queue is never found: the owner named must be the caller's.
        if (in.string("QueueOwnerAWSAccountId")
                .filter(owner -> !owner.equals(call.account()))
                .isPresent()) {
            throw SqsRefusal.queueDoesNotExist();
        }
        return queues.existing(call.project(), queue)
                .map(found -> SqsAnswer.result().string("QueueUrl", call.queueUrl(found)));
    }

    private Uni<SqsAnswer> listQueues(SqsCall call) {
        SqsParameters in = call.parameters();
        return listings.queues(
                        call.project(),
                        in.string("QueueNamePrefix").orElse(null),
                        in.integer("MaxResults").orElse(null),
                        in.string("NextToken").orElse(null))
                .map(page -> SqsAnswer.result()
                        .strings("QueueUrls", "QueueUrl", urls(call, page.names()))
                        .string("NextToken", page.nextToken()));
    }

    private Uni<SqsAnswer> deleteQueue(SqsCall call) {
        return queues.delete(call.project(), call.queue()).map(done -> SqsAnswer.none());
    }

    private Uni<SqsAnswer> purgeQueue(SqsCall call) {
        return queues.purge(call.project(), call.queue()).map(done -> SqsAnswer.none());
    }

    private Uni<SqsAnswer> getQueueAttributes(SqsCall call) {
        QueueName queue = call.queue();
        List<String> names = call.parameters().strings("AttributeNames", "AttributeName");
        return queues.attributes(call.project(), call.account(), queue, names).map(shown -> SqsAnswer.result()
                .entries("Attributes", "Attribute", "Name", "Value", shown.isEmpty() ? null : shown));
    }

    private Uni<SqsAnswer> setQueueAttributes(SqsCall call) {
        QueueName queue = call.queue();
        Map<String, String> attributes = attributes(call.parameters());
        if (attributes.isEmpty()) {
            throw SqsRefusal.missingParameter("Attributes");
        }
        return queues.setAttributes(call.project(), call.account(), queue, attributes)
                .map(done -> SqsAnswer.none());
    }

    private Uni<SqsAnswer> tagQueue(SqsCall call) {
        QueueName queue = call.queue();
        Map<String, String> tags = call.parameters().map("Tags", "Tag", "Key", "Value");
        if (tags.isEmpty()) {
            throw SqsRefusal.missingParameter("Tags");
        }
        return queues.tag(call.project(), queue, tags).map(done -> SqsAnswer.none());
    }

    private Uni<SqsAnswer> untagQueue(SqsCall call) {
        QueueName queue = call.queue();
        List<String> keys = call.parameters().strings("TagKeys", "TagKey");
        if (keys.isEmpty()) {
            throw SqsRefusal.missingParameter("TagKeys");
        }
        return queues.untag(call.project(), queue, keys).map(done -> SqsAnswer.none());
    }

    private Uni<SqsAnswer> listQueueTags(SqsCall call) {
        return queues.tags(call.project(), call.queue())
                .map(tags -> SqsAnswer.result().entries("Tags", "Tag", "Key", "Value", tags.isEmpty() ? null : tags));
    }

    private Uni<SqsAnswer> listDeadLetterSourceQueues(SqsCall call) {
        QueueName queue = call.queue();
        SqsParameters in = call.parameters();
        return queues.existing(call.project(), queue)
                .chain(found -> listings.deadLetterSources(
                        call.project(),
                        found,
                        in.integer("MaxResults").orElse(null),
                        in.string("NextToken").orElse(null)))
                .map(page -> SqsAnswer.result()
                        .strings("queueUrls", "QueueUrl", urls(call, page.names()))
                        .string("NextToken", page.nextToken()));
    }

    /** The queue attributes given: {@code Attributes} in JSON, {@code Attribute.N.Name/Value} in the query protocol. */
    private static Map<String, String> attributes(SqsParameters in) {
        return in.map("Attributes", "Attribute", "Name", "Value");
    }

    private static List<String> urls(SqsCall call, List<String> names) {
        return names.stream().map(name -> call.queueUrl(QueueName.stored(name))).toList();
    }
}
