package io.pigeon.api.v2;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pigeon.api.ApiVersion;
import io.pigeon.api.read.IncludedFields;
import io.pigeon.api.view.Hrefs;
import io.pigeon.api.view.PageLink;
import io.pigeon.message.Message;
import io.pigeon.message.MessageIds;
import io.pigeon.message.TraceContext;
import io.pigeon.queue.QueueName;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;
import java.util.UUID;

/** The v2 (and v1.1) documents of messages, claims and queue lists. */
public final class V2Views {

    private V2Views() {}

    /**
     * A message: {@code {"id", "href", "ttl", "age", "body", "checksum"}}; no checksum for a null body, as in Zaqar.
     * {@code claim_count} where the request's version shows it (see {@code IncludedFields}); {@code claim_id} in pop
     * answers only, as in Zaqar's; {@code group} only where asked for ({@code ?include=group}) and the message has one;
     * {@code trace} likewise ({@code ?include=trace}).
     */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Item(
            String id,
            String href,
            int ttl,
            long age,
            @JsonRawValue String body,
            String checksum,
            @JsonProperty("claim_id") String claimId,
            @JsonProperty("claim_count") Integer claimCount,
            String group,
            Trace trace) {}

    /** A message's trace context: {@code {"traceparent", "tracestate"}}, the second only when it came with one. */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Trace(String traceparent, String tracestate) {

        static Trace of(TraceContext context) {
            return context == null ? null : new Trace(context.traceparent(), context.tracestate());
        }
    }

    /** {@code {"messages": [...], "links": [...]}}; links absent where v2 has none (get by ids, claims, pops). */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Messages(List<Item> messages, List<PageLink> links) {}

    @RegisterForReflection
    public record Posted(List<String> resources) {}

    @RegisterForReflection
    public record ClaimView(long age, int ttl, List<Item> messages, String href) {}

    /** A listed queue; {@code metadata} only when the listing is detailed. */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record QueueEntry(String name, String href, ObjectNode metadata) {}

    /** A page of queues or of topics. */
    public interface Listing {}

    /** The queue list; {@code count} only with {@code with_count=true}. */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record QueueList(List<QueueEntry> queues, List<PageLink> links, Long count) implements Listing {}

    /** The topic list (Zaqar's has no count). */
    @RegisterForReflection
    public record TopicList(List<QueueEntry> topics, List<PageLink> links) implements Listing {}

    /** A signed share: what a client sends back as URL-Paths, URL-Methods, X-Project-Id, URL-Expires, URL-Signature. */
    @RegisterForReflection
    public record Shared(List<String> paths, List<String> methods, String project, String expires, String signature) {}

    /** A message's document; with its {@code claim_count} and its {@code group} where {@code shown} says. */
    public static Item item(ApiVersion version, QueueName queue, Message message, IncludedFields.Shown shown) {
        return new Item(
                MessageIds.format(message.id()),
                Hrefs.message(version, queue, message.id()),
                message.ttl(),
                message.age(),
                message.body(),
                BodyChecksum.of(message.body()),
                null,
                shown.claimCount() ? message.claimCount() : null,
                shown.group() ? message.group() : null,
                shown.trace() ? Trace.of(message.trace()) : null);
    }

    public static List<Item> items(
            ApiVersion version, QueueName queue, List<Message> messages, IncludedFields.Shown shown) {
        return messages.stream().map(m -> item(version, queue, m, shown)).toList();
    }

    /** Claimed messages: each href carries the claim id, so that deleting by href proves the claim. */
    public static List<Item> claimedItems(
            ApiVersion version, QueueName queue, UUID claimId, List<Message> messages, IncludedFields.Shown shown) {
        return messages.stream()
                .map(m -> {
                    Item item = item(version, queue, m, shown);
                    return new Item(
                            item.id(),
                            item.href() + "?claim_id=" + claimId,
                            item.ttl(),
                            item.age(),
                            item.body(),
                            item.checksum(),
                            null,
                            item.claimCount(),
                            item.group(),
                            item.trace());
                })
                .toList();
    }

    /**
     * Popped messages. Zaqar pops by claiming and deleting, and its answers name that claim ({@code claim_id}) and
     * count it ({@code claim_count}); Pigeon deletes in one statement with no claim, so {@code popId} is an id made for
     * the answer, naming no claim that can be read. Both only where {@code claim_count} is shown.
     */
    public static List<Item> poppedItems(
            ApiVersion version, QueueName queue, UUID popId, List<Message> messages, IncludedFields.Shown shown) {
        return messages.stream()
                .map(m -> {
                    Item item = item(version, queue, m, shown);
                    return new Item(
                            item.id(),
                            item.href(),
                            item.ttl(),
                            item.age(),
                            item.body(),
                            item.checksum(),
                            shown.claimCount() ? popId.toString() : null,
                            item.claimCount(),
                            item.group(),
                            item.trace());
                })
                .toList();
    }
}
