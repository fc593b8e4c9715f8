package io.pigeon.tenancy;

import io.pigeon.config.PigeonConfig;

import io.pigeon.rules.Rejection;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Zaqar's pre-signed URLs: a grant of some methods on some paths of one project until a time, signed with
 * HMAC-SHA256 under the configured key. What is signed is Zaqar's text exactly: the sorted paths joined by ",",
 * the sorted methods joined by ",", the project ("None" when there is none) and the expiry as
 * {@code yyyy-MM-ddTHH:mm:ss} in UTC, separated by the two characters backslash and n (Zaqar writes them in a raw
 * string), so that URLs signed by either server are accepted by the other.
 */
@ApplicationScoped
public class SignedUrls {

    /** A signed grant, as the share endpoint answers it. */
    public record Grant(List<String> paths, List<String> methods, String project, String expires, String signature) {
    }

    private static final DateTimeFormatter EXPIRES = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss");
    private static final String SEPARATOR = "\\n";

    private final Optional<byte[]> key;
    private final Clock clock;

    @Inject
    public SignedUrls(PigeonConfig config) {
        this(config.signedUrl().secretKey().filter(secret -> !secret.isEmpty())
                .map(secret -> secret.getBytes(StandardCharsets.UTF_8)), Clock.systemUTC());
    }

    SignedUrls(Optional<byte[]> key, Clock clock) {
        this.key = key;
        this.clock = clock;
    }

    public boolean enabled() {
        return key.isPresent();
    }

    /**
     * Signs a grant of {@code methods} on {@code paths} for {@code project} until {@code expires} (Zaqar's
     * texts for what it refuses: a missing key, an expiry not in the future).
     */
    public Grant sign(List<String> paths, List<String> methods, String project, Instant expires) {
        byte[] secret = key.orElseThrow(() -> Rejection.invalidRequest("The `key` can't be None"));
        Instant expiry = expires.truncatedTo(ChronoUnit.SECONDS);
        if (!expires.isAfter(clock.instant())) {
            throw Rejection.invalidRequest("`expires` is lower than the current time");
        }
        List<String> sortedPaths = paths.stream().sorted().toList();
        List<String> sortedMethods = methods.stream().sorted().toList();
        String expiresText = EXPIRES.format(expiry.atOffset(ZoneOffset.UTC));
        return new Grant(sortedPaths, sortedMethods, project, expiresText,
                signature(secret, sortedPaths, sortedMethods, project, expiresText));
    }

    /**
     * Whether {@code signature} is this server's signature of the grant the headers describe, and the grant has
     * not expired. An unparseable expiry, or none, verifies nothing.
     */
    public boolean verifies(List<String> paths, List<String> methods, String project, String expires,
            String signature) {
        if (key.isEmpty() || expires == null || signature == null) {
            return false;
        }
        Instant expiry;
        try {
            expiry = parseExpires(expires);
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (!expiry.isAfter(clock.instant())) {
            return false;
        }
        String expected = signature(key.get(), paths.stream().sorted().toList(), methods.stream().sorted().toList(),
                project, EXPIRES.format(expiry.truncatedTo(ChronoUnit.SECONDS).atOffset(ZoneOffset.UTC)));
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                signature.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * An expiry as Zaqar reads it: an ISO 8601 date and time (a space may stand for the T; no offset means UTC),
     * or a date alone (its midnight). A bare integer is refused, as Zaqar refuses it.
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

    private static String signature(byte[] secret, List<String> paths, List<String> methods, String project,
            String expires) {
        String signed = String.join(",", paths) + SEPARATOR + String.join(",", methods) + SEPARATOR
                + (project == null ? "None" : project) + SEPARATOR + expires;
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(secret, "HmacSHA256"));
            return HexFormat.of().formatHex(hmac.doFinal(signed.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HMAC-SHA256 is part of every Java runtime", e);
        }
    }
}
