package io.pigeon.accesskeys;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Signature Version 4 as AWS verifies it, for one service (SQS): reads the {@code Authorization} header or a
 * pre-signed query string, checks the date against the server's clock and the credential scope against the date, and
 * builds the strings to sign ({@link CanonicalRequest}); {@link SignatureClaim#signedWith} then checks the signature
 * with the key's secret. Pure: no clock of its own, no database, no web type. The rules, and where Pigeon chooses
 * between what clients do, are in docs/decisions/0018-access-keys-and-sigv4.md.
 */
public final class SigV4Verifier {

    public static final String ALGORITHM = "AWS4-HMAC-SHA256";
    public static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
    /** The longest life of a pre-signed URL AWS allows: 7 days. */
    public static final long MAX_EXPIRES_SECONDS = 604_800;

    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final HexFormat HEX = HexFormat.of();
    private static final String SIGNATURE_MISMATCH = "The request signature we calculated does not match the signature"
            + " you provided. Check your AWS Secret Access Key and signing method.";

    private final String service;
    private final Duration maxSkew;

    /** A verifier for requests to {@code service} (the credential scope's service) with at most {@code maxSkew}. */
    public SigV4Verifier(String service, Duration maxSkew) {
        this.service = service;
        this.maxSkew = maxSkew;
    }

    /** The reading of a request: a claim to check with the key's secret, or the refusal already decided. */
    public record Reading(SignatureClaim claim, SignedCaller refusal) {
        static Reading refused(SignatureRefusal refusal, String message) {
            return new Reading(null, SignedCaller.refused(refusal, message));
        }
    }

    /** Reads, checks and verifies {@code request} at {@code now}, finding the key's secret in {@code secrets}. */
    public SignedCaller verify(SignedRequest request, Instant now, KeySecrets secrets) {
        Reading reading = read(request, now);
        if (reading.refusal() != null) {
            return reading.refusal();
        }
        return check(reading.claim(), secrets.find(reading.claim().accessKeyId()));
    }

    /** The answer for {@code claim} given what the lookup of its key found. */
    public static SignedCaller check(SignatureClaim claim, Optional<KeySecrets.KeySecret> key) {
        if (key.isEmpty()) {
            return SignedCaller.refused(
                    SignatureRefusal.INVALID_CLIENT_TOKEN_ID, "The security token included in the request is invalid.");
        }
        if (!claim.signedWith(key.get().secret())) {
            return SignedCaller.refused(SignatureRefusal.SIGNATURE_DOES_NOT_MATCH, SIGNATURE_MISMATCH);
        }
        return SignedCaller.of(key.get().project(), claim.accessKeyId());
    }

    /** Reads {@code request}: everything that can be decided without the key's secret, at {@code now}. */
    public Reading read(SignedRequest request, Instant now) {
        String authorization = request.firstHeader("authorization");
        if (authorization != null) {
            return readHeader(request, authorization, now);
        }
        Map<String, String> query = amzQueryParameters(request.rawQuery());
        if (query.containsKey("X-Amz-Algorithm") || query.containsKey("X-Amz-Signature")) {
            return readQuery(request, query, now);
        }
        return Reading.refused(
                SignatureRefusal.MISSING_AUTHENTICATION_TOKEN, "Request is missing Authentication Token");
    }

    /**
     * The access key id a request names, read without checking anything else (for auth mode {@code none}, where it
     * names the project): the {@code Credential} of the {@code Authorization} header, or {@code X-Amz-Credential}.
     */
    public static Optional<String> accessKeyIdOf(SignedRequest request) {
        String authorization = request.firstHeader("authorization");
        String credential = null;
        if (authorization != null) {
            int at = authorization.indexOf("Credential=");
            if (at >= 0) {
                int end = authorization.indexOf(',', at);
                credential =
                        authorization.substring(at + "Credential=".length(), end < 0 ? authorization.length() : end);
            }
        } else {
            credential = amzQueryParameters(request.rawQuery()).get("X-Amz-Credential");
        }
        if (credential == null) {
            return Optional.empty();
        }
        int slash = credential.indexOf('/');
        String id = (slash < 0 ? credential : credential.substring(0, slash)).strip();
        return id.isEmpty() ? Optional.empty() : Optional.of(id);
    }

    private Reading readHeader(SignedRequest request, String authorization, Instant now) {
        String trimmed = authorization.strip();
        int space = trimmed.indexOf(' ');
        String algorithm = space < 0 ? trimmed : trimmed.substring(0, space);
        if (!algorithm.equals(ALGORITHM)) {
            return Reading.refused(
                    SignatureRefusal.INCOMPLETE_SIGNATURE,
                    "Unsupported AWS 'algorithm': '" + bounded(algorithm) + "'; only " + ALGORITHM + " is accepted.");
        }
        Map<String, String> parts = new LinkedHashMap<>();
        for (String part : trimmed.substring(space + 1).split(",")) {
            int equals = part.indexOf('=');
            if (equals > 0) {
                parts.putIfAbsent(
                        part.substring(0, equals).strip(),
                        part.substring(equals + 1).strip());
            }
        }
        List<String> missing = new ArrayList<>();
        for (String required : List.of("Credential", "Signature", "SignedHeaders")) {
            if (!parts.containsKey(required) || parts.get(required).isEmpty()) {
                missing.add("Authorization header requires '" + required + "' parameter.");
            }
        }
        String amzDate = request.firstHeader("x-amz-date");
        String requestDate = amzDate != null ? amzDate.strip() : httpDate(request.firstHeader("date"));
        if (requestDate == null) {
            missing.add("Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.");
        }
        if (!missing.isEmpty()) {
            return Reading.refused(SignatureRefusal.INCOMPLETE_SIGNATURE, String.join(" ", missing));
        }
        Instant signedAt = amzInstant(requestDate);
        if (signedAt == null) {
            return Reading.refused(
                    SignatureRefusal.INCOMPLETE_SIGNATURE,
                    "X-Amz-Date must be in the ISO8601 basic format yyyyMMdd'T'HHmmss'Z': " + bounded(requestDate));
        }
        if (Duration.between(signedAt, now).abs().compareTo(maxSkew) > 0) {
            return Reading.refused(
                    SignatureRefusal.REQUEST_EXPIRED,
                    "Signature expired: " + requestDate + " is more than " + maxSkew.toMinutes()
                            + " minutes from the server's time " + AMZ_DATE.format(now) + ".");
        }
        String declared = request.firstHeader("x-amz-content-sha256");
        String bodyHash = sha256Hex(request.body());
        if (declared != null && !declared.strip().equals(bodyHash)) {
            return Reading.refused(
                    SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                    "The x-amz-content-sha256 header does not match the SHA-256 of the body; the body must be signed.");
        }
        return claim(
                request,
                parts.get("Credential"),
                requestDate,
                parts.get("SignedHeaders"),
                parts.get("Signature"),
                null,
                List.of(bodyHash));
    }

    private Reading readQuery(SignedRequest request, Map<String, String> query, Instant now) {
        List<String> missing = new ArrayList<>();
        for (String required : List.of(
                "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Signature")) {
            if (query.getOrDefault(required, "").isEmpty()) {
                missing.add("AWS query-string parameters must include '" + required + "'.");
            }
        }
        if (!missing.isEmpty()) {
            return Reading.refused(SignatureRefusal.INCOMPLETE_SIGNATURE, String.join(" ", missing));
        }
        if (!query.get("X-Amz-Algorithm").equals(ALGORITHM)) {
            return Reading.refused(
                    SignatureRefusal.INCOMPLETE_SIGNATURE,
                    "Unsupported AWS 'algorithm': '" + bounded(query.get("X-Amz-Algorithm")) + "'; only " + ALGORITHM
                            + " is accepted.");
        }
        String requestDate = query.get("X-Amz-Date");
        Instant signedAt = amzInstant(requestDate);
        if (signedAt == null) {
            return Reading.refused(
                    SignatureRefusal.INCOMPLETE_SIGNATURE,
                    "X-Amz-Date must be in the ISO8601 basic format yyyyMMdd'T'HHmmss'Z': " + bounded(requestDate));
        }
        long expires;
        try {
            expires = Long.parseLong(query.getOrDefault("X-Amz-Expires", String.valueOf(maxSkew.toSeconds())));
        } catch (NumberFormatException e) {
            expires = -1;
        }
        if (expires < 1 || expires > MAX_EXPIRES_SECONDS) {
            return Reading.refused(
                    SignatureRefusal.INCOMPLETE_SIGNATURE,
                    "X-Amz-Expires must be a number of seconds from 1 to " + MAX_EXPIRES_SECONDS + ".");
        }
        if (signedAt.isAfter(now.plus(maxSkew))) {
            return Reading.refused(
                    SignatureRefusal.REQUEST_EXPIRED,
                    "Request is not yet valid: " + requestDate + " is later than the server's time "
                            + AMZ_DATE.format(now) + " by more than " + maxSkew.toMinutes() + " minutes.");
        }
        if (now.isAfter(signedAt.plusSeconds(expires))) {
            return Reading.refused(
                    SignatureRefusal.REQUEST_EXPIRED,
                    "Request has expired: signed at " + requestDate + " for " + expires + " seconds.");
        }
        String bodyHash = sha256Hex(request.body());
        // A pre-signed URL without a body may be signed with UNSIGNED-PAYLOAD (the Java SDK's presigning does); a
        // body, when there is one, is always signed, so that a URL cannot carry any body its holder likes
        List<String> payloadHashes =
                request.body().length == 0 ? List.of(bodyHash, UNSIGNED_PAYLOAD) : List.of(bodyHash);
        return claim(
                request,
                query.get("X-Amz-Credential"),
                requestDate,
                query.get("X-Amz-SignedHeaders"),
                query.get("X-Amz-Signature"),
                "X-Amz-Signature",
                payloadHashes);
    }

    private Reading claim(
            SignedRequest request,
            String credential,
            String requestDate,
            String signedHeaders,
            String signature,
            String omittedParameter,
            List<String> payloadHashes) {
        String[] scope = credential.split("/", -1);
        if (scope.length != 5 || scope[0].isEmpty() || scope[2].isEmpty()) {
            return Reading.refused(
                    SignatureRefusal.INCOMPLETE_SIGNATURE,
                    "Credential must have the form <access key id>/<yyyyMMdd>/<region>/" + service + "/aws4_request: "
                            + bounded(credential));
        }
        if (!scope[4].equals("aws4_request")) {
            return Reading.refused(
                    SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                    "Credential should be scoped with a valid terminator: 'aws4_request', not '" + bounded(scope[4])
                            + "'.");
        }
        if (!scope[3].equals(service)) {
            return Reading.refused(
                    SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                    "Credential should be scoped to correct service: '" + service + "'.");
        }
        if (!scope[1].equals(requestDate.substring(0, 8))) {
            return Reading.refused(
                    SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                    "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '"
                            + bounded(scope[1]) + "' != '" + requestDate.substring(0, 8) + "'.");
        }
        List<String> names = List.of(signedHeaders.split(";", -1));
        if (!names.contains("host")) {
            return Reading.refused(
                    SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                    "'Host' must be a 'SignedHeader' in the AWS Authorization.");
        }
        byte[] provided;
        try {
            provided = signature.length() == 64 ? HEX.parseHex(signature) : null;
        } catch (IllegalArgumentException e) {
            provided = null;
        }
        if (provided == null) {
            return Reading.refused(SignatureRefusal.SIGNATURE_DOES_NOT_MATCH, SIGNATURE_MISMATCH);
        }
        String scopeText = scope[1] + '/' + scope[2] + '/' + scope[3] + "/aws4_request";
        List<String> stringsToSign = new ArrayList<>(2);
        for (String payloadHash : payloadHashes) {
            String canonical = CanonicalRequest.of(request, omittedParameter, names, signedHeaders, payloadHash);
            if (canonical == null) {
                return Reading.refused(
                        SignatureRefusal.SIGNATURE_DOES_NOT_MATCH,
                        "A header named in SignedHeaders was not sent: " + bounded(signedHeaders));
            }
            stringsToSign.add(ALGORITHM
                    + '\n'
                    + requestDate
                    + '\n'
                    + scopeText
                    + '\n'
                    + sha256Hex(canonical.getBytes(StandardCharsets.UTF_8)));
        }
        return new Reading(
                new SignatureClaim(scope[0], scope[1], scope[2], scope[3], provided, List.copyOf(stringsToSign)), null);
    }

    /** The X-Amz-* parameters of a query string, decoded (only those: the others are read by the canonical form). */
    private static Map<String, String> amzQueryParameters(String rawQuery) {
        Map<String, String> found = new LinkedHashMap<>();
        if (!rawQuery.contains("X-Amz-")) {
            return found;
        }
        for (String part : rawQuery.split("&")) {
            int equals = part.indexOf('=');
            if (part.startsWith("X-Amz-") && equals > 0) {
                found.putIfAbsent(part.substring(0, equals), CanonicalRequest.decode(part.substring(equals + 1)));
            }
        }
        return found;
    }

    /** An RFC 1123 {@code Date} header as an ISO 8601 basic date-time, or null. */
    private static String httpDate(String date) {
        if (date == null) {
            return null;
        }
        try {
            return AMZ_DATE.format(ZonedDateTime.parse(date.strip(), DateTimeFormatter.RFC_1123_DATE_TIME));
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static Instant amzInstant(String text) {
        if (text == null || text.length() != 16) {
            return null;
        }
        try {
            return AMZ_DATE.parse(text, Instant::from);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    static String sha256Hex(byte[] bytes) {
        try {
            return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /** A caller's text quoted in a message, cut to a length that cannot make an answer large. */
    private static String bounded(String text) {
        return text.length() <= 128 ? text : text.substring(0, 128) + "...";
    }
}
