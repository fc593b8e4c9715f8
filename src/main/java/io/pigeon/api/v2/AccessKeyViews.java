package io.pigeon.api.v2;

import io.pigeon.accesskeys.AccessKey;
import io.pigeon.accesskeys.NewAccessKey;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** The documents of a project's SQS access keys (Pigeon's extension): a new key with its secret, and the list. */
public final class AccessKeyViews {

    static final String COLLECTION = "/v2/access-keys";
    private static final DateTimeFormatter ISO_SECONDS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

    private AccessKeyViews() {}

    /** A key just made: the only document that holds {@code secret_access_key}. */
    @RegisterForReflection
    public record Created(String access_key_id, String secret_access_key, String href, String created) {}

    /** A key as listed: {@code revoked} null while it is live. */
    @RegisterForReflection
    public record Listed(String access_key_id, String href, String created, String revoked) {}

    /** A project's keys, oldest first. */
    @RegisterForReflection
    public record Keys(List<Listed> access_keys) {}

    static String href(String accessKeyId) {
        return COLLECTION + "/" + accessKeyId;
    }

    static Created of(NewAccessKey key) {
        return new Created(key.accessKeyId(), key.secretAccessKey(), href(key.accessKeyId()), time(key.createdAt()));
    }

    static Keys of(List<AccessKey> keys) {
        return new Keys(keys.stream()
                .map(key -> new Listed(
                        key.accessKeyId(), href(key.accessKeyId()), time(key.createdAt()), time(key.revokedAt())))
                .toList());
    }

    private static String time(Instant time) {
        return time == null ? null : ISO_SECONDS.format(time.truncatedTo(ChronoUnit.SECONDS));
    }
}
