package io.pigeon.api.view;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** An entry of a page's {@code links}, e.g. {@code {"rel": "next", "href": "..."}}. */
@RegisterForReflection
public record PageLink(String rel, String href) {

    public static PageLink next(String href) {
        return new PageLink("next", href);
    }
}
