package io.pigeon.api.v3;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.pigeon.api.view.PageLink;
import io.pigeon.dispatch.DeadGroup;
import io.pigeon.dispatch.DispatchStore;
import io.pigeon.dispatch.ListedGroup;
import io.pigeon.scaling.QueueDepth;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/** The wire shapes of /v3: times are unix seconds (as {@code ontime} is), ids are strings. */
final class V3Views {

    private V3Views() {}

    /** A queue's depth: free (no live claim holds them, delayed ones included), claimed, and both. */
    @RegisterForReflection
    record Depth(long free, long claimed, long total) {
        static Depth of(QueueDepth depth) {
            return new Depth(depth.free(), depth.claimed(), depth.total());
        }
    }

    @RegisterForReflection
    record Enqueued(String id, String group_id, double fire_at) {
        static Enqueued of(DispatchStore.Enqueued enqueued) {
            return new Enqueued(Long.toString(enqueued.itemId()), Long.toString(enqueued.groupId()), enqueued.fireAt());
        }
    }

    @RegisterForReflection
    record Item(String id, @JsonRawValue String body, double created) {}

    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record Group(String id, double fire_at, int attempts, boolean in_flight, String last_error, List<Item> items) {
        static Group of(DispatchStore.PendingGroup group) {
            return new Group(
                    Long.toString(group.id()),
                    group.fireAt(),
                    group.attempts(),
                    group.inFlight(),
                    group.lastError(),
                    group.items().stream()
                            .map(item -> new Item(Long.toString(item.id()), item.body(), item.created()))
                            .toList());
        }
    }

    @RegisterForReflection
    record Pending(
            String merge_key, String method, String target, boolean merged, List<Group> groups, List<PageLink> links) {}

    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record DeadGroupView(
            String id,
            String merge_key,
            String method,
            String target,
            int attempts,
            String last_error,
            double dead_at,
            double created_at,
            long items) {
        static DeadGroupView of(DeadGroup group) {
            ListedGroup listed = group.group();
            return new DeadGroupView(
                    Long.toString(listed.id()),
                    listed.mergeKey(),
                    listed.method(),
                    listed.target(),
                    listed.attempts(),
                    listed.lastError(),
                    group.deadAt(),
                    group.createdAt(),
                    group.items());
        }
    }

    @RegisterForReflection
    record DeadGroups(List<DeadGroupView> groups, List<PageLink> links) {}
}
