package io.pigeon.api.v1;

import com.fasterxml.jackson.annotation.JsonRawValue;
import io.pigeon.api.ApiVersion;
import io.pigeon.api.view.Hrefs;
import io.pigeon.api.view.PageLink;
import io.pigeon.message.Message;
import io.pigeon.queue.QueueName;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;
import java.util.UUID;

/** The v1 documents of messages and claims. */
public final class V1Views {

    private V1Views() {}

    /** A message: {@code {"href", "ttl", "age", "body"}}. */
    @RegisterForReflection
    public record Item(String href, int ttl, long age, @JsonRawValue String body) {}

    /** A page of messages with its {@code next} link. */
    @RegisterForReflection
    public record Page(List<Item> messages, List<PageLink> links) {}

    /** The answer to a post: the new messages' hrefs in request order. */
    @RegisterForReflection
    public record Posted(List<String> resources, boolean partial) {}

    /** A claim: {@code {"age", "ttl", "messages", "href"}}. */
    @RegisterForReflection
    public record ClaimView(long age, int ttl, List<Item> messages, String href) {}

    public static Item item(QueueName queue, Message message) {
        return new Item(
                Hrefs.message(ApiVersion.V1, queue, message.id()), message.ttl(), message.age(), message.body());
    }

    /** A claimed message: its href carries the claim id, so that deleting it by href proves the claim. */
    public static Item claimedItem(QueueName queue, UUID claimId, Message message) {
        return new Item(
                Hrefs.message(ApiVersion.V1, queue, message.id()) + "?claim_id=" + claimId,
                message.ttl(),
                message.age(),
                message.body());
    }

    public static List<Item> items(QueueName queue, List<Message> messages) {
        return messages.stream().map(m -> item(queue, m)).toList();
    }

    public static List<Item> claimedItems(QueueName queue, UUID claimId, List<Message> messages) {
        return messages.stream().map(m -> claimedItem(queue, claimId, m)).toList();
    }
}
