package io.pigeon.accesskeys;

import java.time.Instant;

/** An access key as listed: never its secret. {@code revokedAt} is null while it is live. */
public record AccessKey(String accessKeyId, Instant createdAt, Instant revokedAt) {

    /** Whether the key still signs requests. */
    public boolean live() {
        return revokedAt == null;
    }
}
