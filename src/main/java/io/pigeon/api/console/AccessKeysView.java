package io.pigeon.api.console;

import io.pigeon.accesskeys.AccessKey;
import io.pigeon.accesskeys.NewAccessKey;
import io.quarkus.qute.TemplateData;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The views of a project's SQS access keys page: its keys (never a secret), and once, right after a key is made, that
 * key's id and secret.
 */
final class AccessKeysView {

    private static final DateTimeFormatter SHOWN =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

    private AccessKeysView() {}

    /** One key as listed: {@code revoked} null while it is live, then its revoke form's address is null too. */
    @TemplateData
    public record Key(String id, String created, String revoked, String revokeHref) {}

    /** A key just made, shown this once. */
    @TemplateData
    public record Created(String id, String secret) {}

    @TemplateData
    public record Keys(
            ConsoleViews.Frame frame, String notice, String csrf, String createHref, Created created, List<Key> keys) {}

    static Keys of(ConsolePages.Call call, String notice, NewAccessKey created, List<AccessKey> keys) {
        String href = href(call.frame().project());
        return new Keys(
                call.frame(),
                notice,
                call.token(),
                href,
                created == null ? null : new Created(created.accessKeyId(), created.secretAccessKey()),
                keys.stream()
                        .map(key -> new Key(
                                key.accessKeyId(),
                                time(key.createdAt()),
                                time(key.revokedAt()),
                                key.live() ? href + "/" + key.accessKeyId() + "/revoke" : null))
                        .toList());
    }

    static String href(String project) {
        return ConsolePages.projectHref(project) + "/access-keys";
    }

    private static String time(Instant time) {
        return time == null ? null : SHOWN.format(time.truncatedTo(ChronoUnit.SECONDS));
    }
}
