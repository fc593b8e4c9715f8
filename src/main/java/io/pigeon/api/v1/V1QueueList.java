package io.pigeon.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.pigeon.api.view.PageLink;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/** The v1 queue-list page: {@code {"queues": [...], "links": [...]}}. */
@RegisterForReflection
public record V1QueueList(List<Entry> queues, List<PageLink> links) {

    /** One listed queue; {@code metadata} only when the listing is detailed. */
    @RegisterForReflection
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Entry(String name, String href, @JsonRawValue String metadata) {}
}
