package io.pigeon.api;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** The body of every 4xx and 5xx answer, in Zaqar's shape. */
@RegisterForReflection
public record ErrorDocument(String title, String description) {
}
