package io.pigeon.tenancy;

import io.pigeon.config.KeySettings;
import io.pigeon.rules.Rejection;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Zaqar's pre-signed URLs: a grant of some methods on some resources of one queue of one project until a time,
 * signed with HMAC-SHA256. What is signed is Zaqar's text exactly: the sorted paths joined by ",", the sorted
 * methods joined by ",", the project and the expiry as {@code yyyy-MM-ddTHH:mm:ss} in UTC, separated by the two
 * characters backslash and n (Zaqar writes them in a raw string), so that URLs signed under the unnamed key by
 * either server are accepted by the other. A grant under a named key carries the key's id in front of its
 * signature, so that keys can rotate.
 *
 * <p>What a grant opens is decided on the resource the request was routed to ({@link SignedTarget}), never on the
 * request's path: each granted path is read as the resource it names ({@code /v2/queues/q/messages}: the messages
 * of queue q, and below them; {@code /v2/queues/q/subscriptions/{id}/confirm}: that confirmation alone), and a path
 * of any other shape grants nothing.
 */
@ApplicationScoped
@Startup // built at start, not by the first share: its keys are also checked before anything starts (SettingsCheck)
public class SignedUrls {

    /** A signed grant, as the share endpoint answers it. */
    public record Grant(List<String> paths, List<String> methods, String project, String expires, String signature) {}

    /** The headers a pre-signed request carries, as sent (any of them may be missing: null). */
    public record Presented(String signature, String expires, String methods, String paths, String project) {}

    /** The methods a grant may name. */
    public static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE");
    /**
     * What a granted path may hold. The signed text separates its fields with backslash-n, so a field that could
     * hold a backslash could carry text signed as another field (a method signed as a path): none can.
     */
    private static final Pattern GRANTED_PATH = Pattern.compile("[A-Za-z0-9._~/-]+");

    /** The shortest key accepted: HMAC-SHA256's own output size. */
    public static final int MIN_KEY_BYTES = KeySettings.MIN_SIGNING_KEY_BYTES;

    private static final DateTimeFormatter EXPIRES = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");
    private static final String SEPARATOR = "\\n";
    private static final String UNNAMED = KeySettings.UNNAMED;
    private static final char KEY_ID_END = ':';

    private final Map<String, byte[]> keys;
    private final String signingKey;
    private final Duration maxLifetime;
    private final Clock clock;

    @Inject
    public SignedUrls(SignedUrlSettings signedUrlSettings) {
        this(
                configuredKeys(signedUrlSettings),
                KeySettings.signingKeyId(signedUrlSettings.signingKey(), configuredKeys(signedUrlSettings)),
                signedUrlSettings.maxLifetime(),
                Clock.systemUTC());
    }

    /**
     * Signs with {@code keys.get(signingKey)} ({@code ""} is the unnamed key) and accepts every key; none at all
     * signs and accepts nothing.
     */
    SignedUrls(Map<String, byte[]> keys, String signingKey, Duration maxLifetime, Clock clock) {
        this.keys = Map.copyOf(keys);
        this.signingKey = signingKey;
        this.maxLifetime = maxLifetime;
        this.clock = clock;
        if (!keys.isEmpty() && !keys.containsKey(signingKey)) {
            throw new IllegalStateException("pigeon.signed-url.signing-key names no configured key: " + signingKey);
        }
    }

    /** The configured keys by id, each checked ({@link KeySettings}): a short key or a malformed id stops the start. */
    static Map<String, byte[]> configuredKeys(SignedUrlSettings config) {
        return KeySettings.signingKeys(config.secretKey(), config.keys());
    }

    public boolean enabled() {
        return !keys.isEmpty();
    }

    /** The longest a grant may be valid ({@code pigeon.signed-url.max-lifetime}). */
    public Duration maxLifetime() {
        return maxLifetime;
    }

    /**
     * Signs a grant of {@code methods} on {@code paths} for {@code project} until {@code expires} (Zaqar's
     * texts for what it refuses: a missing key, an expiry not in the future; Pigeon's for an expiry beyond the
     * longest lifetime).
     */
    public Grant sign(List<String> paths, List<String> methods, String project, Instant expires) {
        if (keys.isEmpty()) {
            throw Rejection.invalidRequest("The `key` can't be None");
        }
        Objects.requireNonNull(project, "a grant is always for one project");
        Instant now = clock.instant();
        Instant expiry = expires.truncatedTo(ChronoUnit.SECONDS);
        if (!expires.isAfter(now)) {
            throw Rejection.invalidRequest("`expires` is lower than the current time");
        }
        if (expiry.isAfter(now.plus(maxLifetime))) {
            throw Rejection.invalidRequest("`expires` must be at most " + maxLifetime.toSeconds() + " seconds from now "
                    + "(pigeon.signed-url.max-lifetime)");
        }
        return signed(paths, methods, project, expiry);
    }

    /**
     * Signs a subscription's confirmation grant ({@code PUT} on its confirm path) until {@code expires}, which the
     * store made later than every earlier request's: it may lie a little beyond the longest lifetime (requests in a
     * burst), and is then accepted once it is within it.
     */
    public Grant signConfirmation(String confirmPath, String project, Instant expires) {
        if (keys.isEmpty()) {
            throw new IllegalStateException("no signing key: confirmation requests are not sent");
        }
        return signed(
                List.of(confirmPath),
                List.of("PUT"),
                Objects.requireNonNull(project),
                expires.truncatedTo(ChronoUnit.SECONDS));
    }

    private Grant signed(List<String> paths, List<String> methods, String project, Instant expiry) {
        if (!METHODS.containsAll(methods)
                || !paths.stream().allMatch(path -> GRANTED_PATH.matcher(path).matches())) {
            throw new IllegalArgumentException("a grant names methods of " + METHODS + " and paths of " + GRANTED_PATH
                    + " only: " + methods + " " + paths);
        }
        List<String> sortedPaths = paths.stream().sorted().toList();
        List<String> sortedMethods = methods.stream().sorted().toList();
        String expiresText = EXPIRES.format(expiry.atOffset(ZoneOffset.UTC));
        String signature = hmac(keys.get(signingKey), sortedPaths, sortedMethods, project, expiresText);
        return new Grant(
                sortedPaths,
                sortedMethods,
                project,
                expiresText,
                signingKey.isEmpty() ? signature : signingKey + KEY_ID_END + signature);
    }

    /**
     * Whether the presented grant admits {@code method} on {@code target}: it names a project and the method, one
     * of its paths names the target's resource, its expiry is written exactly as signed, is ahead and no further
     * than the longest lifetime, and the signature is this server's under the key it names.
     */
    /** The expiry of a grant that {@link #admits} accepted (written exactly as signed). */
    public static Instant expiryOf(Presented presented) {
        return LocalDateTime.parse(presented.expires(), EXPIRES).toInstant(ZoneOffset.UTC);
    }

    public boolean admits(Presented presented, String method, SignedTarget target) {
        if (presented.project() == null
                || presented.project().isEmpty()
                || presented.methods() == null
                || presented.paths() == null) {
            return false;
        }
        List<String> methods = split(presented.methods());
        List<String> paths = split(presented.paths());
        return METHODS.containsAll(methods)
                && paths.stream().allMatch(path -> GRANTED_PATH.matcher(path).matches())
                && methods.contains(method)
                && paths.stream().anyMatch(path -> grants(path, target))
                && verifies(paths, methods, presented.project(), presented.expires(), presented.signature());
    }

    /**
     * Whether {@code signature} is this server's signature of the grant, and the grant is live: its expiry is
     * the signed text itself, ahead of now and within the longest lifetime.
     */
    public boolean verifies(
            List<String> paths, List<String> methods, String project, String expires, String signature) {
        if (keys.isEmpty() || project == null || expires == null || signature == null) {
            return false;
        }
        Instant expiry;
        try {
            expiry = LocalDateTime.parse(expires, EXPIRES).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            return false;
        }
        Instant now = clock.instant();
        if (!expiry.isAfter(now)
                || expiry.isAfter(now.plus(maxLifetime))
                || !expires.equals(EXPIRES.format(expiry.atOffset(ZoneOffset.UTC)))) {
            return false;
        }
        int idEnd = signature.indexOf(KEY_ID_END);
        byte[] key = keys.get(idEnd < 0 ? UNNAMED : signature.substring(0, idEnd));
        if (key == null || idEnd == 0) {
            return false;
        }
        String expected = hmac(
                key, paths.stream().sorted().toList(), methods.stream().sorted().toList(), project, expires);
        return MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.US_ASCII),
                signature.substring(idEnd + 1).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Whether one granted path names the target's resource: {@code /v2/{collection}/{name}/{kind}} grants the
     * queue's resources of that kind but no confirmation, and
     * {@code /v2/{collection}/{name}/subscriptions/{id}/confirm} grants that subscription's confirmation alone.
     */
    static boolean grants(String grantedPath, SignedTarget target) {
        String[] segments = grantedPath.split("/", -1);
        boolean resource = segments.length == 5;
        boolean confirmation = segments.length == 7 && "confirm".equals(segments[6]);
        if (!(resource || confirmation)
                || !segments[0].isEmpty()
                || !segments[1].equals(target.version())
                || !segments[2].equals(target.collection())
                || !segments[3].equals(target.queue())
                || SignedTarget.Kind.ofSegment(segments[4])
                        .filter(target.kind()::equals)
                        .isEmpty()) {
            return false;
        }
        return resource
                ? target.confirmed().isEmpty()
                : target.confirmed().filter(segments[5]::equals).isPresent();
    }

    /** A header's values split on commas, as Zaqar splits them (no trimming). */
    private static List<String> split(String header) {
        return Arrays.asList(header.split(",", -1));
    }

    /**
     * An expiry as Zaqar reads it in a share request: an ISO 8601 date and time (a space may stand for the T; no
     * offset means UTC), or a date alone (its midnight). A bare integer is refused, as Zaqar refuses it.
     */
    public static Instant parseExpires(String text) {
        String value = text.trim();
        if (value.matches("-?\\d+")) {
            throw new IllegalArgumentException("`expires` should be date format, for example 2016-01-01T00:00:00, "
                    + "not integer value: " + value);
        }
        String iso = value.replace(' ', 'T');
        try {
            return OffsetDateTime.parse(iso).toInstant();
        } catch (DateTimeParseException notWithOffset) {
            try {
                return LocalDateTime.parse(iso).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException notLocal) {
                try {
                    return LocalDate.parse(iso).atStartOfDay().toInstant(ZoneOffset.UTC);
                } catch (DateTimeParseException notDate) {
                    throw new IllegalArgumentException("Unable to parse date string '" + value + "'");
                }
            }
        }
    }

    private static String hmac(
            byte[] secret, List<String> paths, List<String> methods, String project, String expires) {
        String signed = String.join(",", paths)
                + SEPARATOR
                + String.join(",", methods)
                + SEPARATOR
                + project
                + SEPARATOR
                + expires;
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return HexFormat.of().formatHex(hmac.doFinal(signed.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HMAC-SHA256 is part of every Java runtime", e);
        }
    }
}
