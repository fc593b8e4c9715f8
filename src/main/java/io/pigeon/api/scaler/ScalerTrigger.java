package io.pigeon.api.scaler;

import io.pigeon.queue.QueueName;
import io.pigeon.rules.Rejection;
import io.pigeon.scaling.DepthMetric;
import io.pigeon.tenancy.Projects;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a KEDA trigger of type {@code external} (or {@code external-push}) asks of Pigeon, read from its metadata
 * ({@code ScaledObjectRef.scalerMetadata}: every key of the trigger's {@code metadata}, KEDA's own among them, with each
 * {@code …FromEnv} key's value replaced by the scaled workload's environment variable it names). Keys:
 *
 * <ul>
 *   <li>{@code project} (required): the project whose queue it is;
 *   <li>{@code queue} (required): the queue's name;
 *   <li>{@code metric}: {@code free} (default) or {@code total}, see {@link DepthMetric};
 *   <li>{@code targetValue}: messages per replica (default {@value #DEFAULT_TARGET}), above 0, at most
 *       {@value #MAX_VALUE}, with at most {@value #MAX_DECIMAL_PLACES} decimal places;
 *   <li>{@code activationTargetValue}: the queue is active above this many (default 0), at most {@value #MAX_VALUE},
 *       with as many decimal places;
 *   <li>{@code bearerTokenFromEnv} or {@code bearerToken}: in OIDC mode, the token that grants the project.
 * </ul>
 *
 * Other keys are KEDA's ({@code scalerAddress}, {@code enableTLS}, ...) or the workload's, and are not read. A value
 * out of bounds is refused naming its key, never read as something else.
 */
record ScalerTrigger(
        String project, QueueName queue, DepthMetric metric, double target, double activation, String token) {

    static final String PROJECT = "project";
    static final String QUEUE = "queue";
    static final String METRIC = "metric";
    static final String TARGET = "targetValue";
    static final String ACTIVATION = "activationTargetValue";
    static final String TOKEN = "bearerToken";
    static final String TOKEN_FROM_ENV = "bearerTokenFromEnv";

    static final int DEFAULT_TARGET = 5;
    /** The largest target or activation value: KEDA turns them into milli-units of a 64-bit quantity. */
    static final long MAX_VALUE = 1_000_000_000L;
    /** Longer than any token an OIDC provider issues, and than any HTTP edge would take in a header. */
    static final int MAX_TOKEN_LENGTH = 16384;

    /** Decimal places a target or activation value may have: a billionth, far below what any queue is scaled on. */
    static final int MAX_DECIMAL_PLACES = 9;

    /** Digits, with an optional fraction: no sign, exponent, hexadecimal, type suffix, NaN or infinity. */
    private static final Pattern DECIMAL = Pattern.compile("[0-9]{1,10}(\\.[0-9]{1," + MAX_DECIMAL_PLACES + "})?");

    /** Reads the trigger's metadata; refuses, naming the key, what is missing or malformed. */
    static ScalerTrigger read(Map<String, String> metadata) {
        String project = required(metadata, PROJECT);
        try {
            Projects.required(project);
        } catch (Rejection malformed) {
            throw invalid(PROJECT, "must be 1 to " + Projects.MAX_PROJECT_ID_LENGTH + " printable ASCII characters.");
        }
        QueueName queue;
        try {
            queue = QueueName.of(required(metadata, QUEUE));
        } catch (Rejection malformed) {
            throw invalid(
                    QUEUE,
                    "must be 1 to " + QueueName.MAX_LENGTH
                            + " bytes of ASCII letters, digits, underscores and hyphens (a queue, not a topic).");
        }
        String metricName = metadata.get(METRIC);
        DepthMetric metric = metricName == null
                ? DepthMetric.FREE
                : DepthMetric.named(metricName).orElseThrow(() -> invalid(METRIC, "must be free or total."));
        double target = number(metadata, TARGET, DEFAULT_TARGET);
        if (target <= 0) {
            throw invalid(TARGET, "must be above 0 (messages per replica).");
        }
        double activation = number(metadata, ACTIVATION, 0);
        return new ScalerTrigger(project, queue, metric, target, activation, token(metadata));
    }

    /** The name of the one metric this trigger reports, as GetMetricSpec gives it and GetMetrics must ask for it. */
    String metricName() {
        return "pigeon-" + metric.key();
    }

    private static String required(Map<String, String> metadata, String key) {
        String value = metadata.get(key);
        if (value == null || value.isEmpty()) {
            throw new Rejection(
                    Rejection.Reason.MISSING_PARAMETER,
                    "scalerMetadata." + key + " is missing: the trigger's metadata must name the " + key + ".");
        }
        return value;
    }

    private static double number(Map<String, String> metadata, String key, double absent) {
        String value = metadata.get(key);
        if (value == null) {
            return absent;
        }
        if (!DECIMAL.matcher(value).matches()) {
            throw invalid(
                    key,
                    "must be a number written in digits, with an optional decimal part of at most " + MAX_DECIMAL_PLACES
                            + " digits, from 0 to " + MAX_VALUE + ".");
        }
        double number = Double.parseDouble(value);
        if (number > MAX_VALUE) {
            throw invalid(key, "may not exceed " + MAX_VALUE + ".");
        }
        return number;
    }

    private static String token(Map<String, String> metadata) {
        String literal = metadata.get(TOKEN);
        String fromEnv = metadata.get(TOKEN_FROM_ENV);
        if (literal != null && fromEnv != null) {
            throw invalid(TOKEN, "and " + TOKEN_FROM_ENV + " are both given: name the token once.");
        }
        String token = fromEnv != null ? fromEnv : literal;
        if (token != null && token.length() > MAX_TOKEN_LENGTH) {
            throw invalid(
                    fromEnv != null ? TOKEN_FROM_ENV : TOKEN, "may not exceed " + MAX_TOKEN_LENGTH + " characters.");
        }
        return token == null || token.isBlank() ? null : token.trim();
    }

    private static Rejection invalid(String key, String expectation) {
        return new Rejection(Rejection.Reason.INVALID_PARAMETER, "scalerMetadata." + key + " " + expectation);
    }
}
