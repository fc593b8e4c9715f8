package io.pigeon.dispatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.rules.Rejection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * When a failed group is called again, or that it is not: a /v3 group backs off exponentially (doubling
 * from {@code retry-initial} up to {@code retry-max}) for {@code max-attempts} calls; a subscription's
 * notification follows Zaqar's {@code _retry_policy} phases (immediate retries, retries at the minimum
 * delay, a backoff function from minimum to maximum delay, retries at the maximum delay). Either way a
 * group older than {@code max-age} is not retried.
 */
public final class RetrySchedule {

    /** Zaqar's defaults for a policy key the queue and subscription leave out. */
    static final int RETRIES_WITH_NO_DELAY = 3;

    static final int MINIMUM_DELAY_RETRIES = 3;
    static final int MINIMUM_DELAY = 5;
    static final int MAXIMUM_DELAY = 30;
    static final int MAXIMUM_DELAY_RETRIES = 3;
    /** Zaqar's step between the backoff function's points, in seconds. */
    static final int BACKOFF_STEP = 5;

    private static final ObjectMapper JSON = new ObjectMapper();

    private RetrySchedule() {}

    /**
     * The delay before the next call of a group that has been called {@code attempts} times and has existed
     * for {@code age}, the last call having failed; empty when the group is to be moved to the dead state.
     */
    public static Optional<Duration> next(int attempts, Duration age, String retryPolicyJson, DispatchSettings config) {
        if (age.compareTo(config.maxAge()) >= 0) {
            return Optional.empty();
        }
        if (retryPolicyJson == null) {
            if (attempts >= config.maxAttempts()) {
                return Optional.empty();
            }
            long initial = config.retryInitial().toMillis();
            long cap = config.retryMax().toMillis();
            int doublings = Math.min(attempts - 1, 40);
            long delay = initial << doublings;
            return Optional.of(Duration.ofMillis(delay <= 0 || delay > cap ? cap : delay));
        }
        List<Integer> delays = subscriptionDelays(resolve(retryPolicyJson));
        return attempts <= delays.size() ? Optional.of(Duration.ofSeconds(delays.get(attempts - 1))) : Optional.empty();
    }

    /**
     * The policy that applies, as Zaqar picks it: the subscription's own unless either policy sets
     * {@code ignore_subscription_override}, else the queue's; an empty policy means every default.
     */
    static JsonNode resolve(String retryPolicyJson) {
        JsonNode both;
        try {
            both = JSON.readTree(retryPolicyJson);
        } catch (IOException e) {
            both = JSON.createObjectNode();
        }
        JsonNode queue = both.path("queue");
        JsonNode subscription = both.path("subscription");
        boolean ignoreSubscription = queue.path("ignore_subscription_override").asBoolean(false)
                || subscription.path("ignore_subscription_override").asBoolean(false);
        if (!ignoreSubscription && subscription.isObject()) {
            return subscription;
        }
        return queue.isObject() ? queue : JSON.createObjectNode();
    }

    /** The delays, in seconds, before each retry a policy allows, in order. */
    static List<Integer> subscriptionDelays(JsonNode policy) {
        int noDelay = count(policy, "retries_with_no_delay", RETRIES_WITH_NO_DELAY);
        int minimumRetries = count(policy, "minimum_delay_retries", MINIMUM_DELAY_RETRIES);
        int minimum = count(policy, "minimum_delay", MINIMUM_DELAY);
        int maximum = Math.max(minimum, count(policy, "maximum_delay", MAXIMUM_DELAY));
        int maximumRetries = count(policy, "maximum_delay_retries", MAXIMUM_DELAY_RETRIES);
        String function = policy.path("retry_backoff_function").asText("linear");
        List<Integer> delays = new ArrayList<>();
        for (int i = 0; i < noDelay; i++) {
            delays.add(0);
        }
        for (int i = 0; i < minimumRetries; i++) {
            delays.add(minimum);
        }
        delays.addAll(backoff(function, minimum, maximum));
        for (int i = 0; i < maximumRetries; i++) {
            delays.add(maximum);
        }
        return delays;
    }

    /** The backoff phase: points from the minimum towards the maximum delay, one per {@value BACKOFF_STEP} s of range. */
    static List<Integer> backoff(String function, int minimum, int maximum) {
        int points = (maximum - minimum) / BACKOFF_STEP;
        List<Integer> delays = new ArrayList<>();
        if (points < 1) {
            return delays;
        }
        for (int k = 0; k < points; k++) {
            double delay =
                    switch (function) {
                            // Rising by a growing step, reaching the maximum's neighbourhood at the last point.
                        case "arithmetic" -> points == 1
                                ? minimum
                                : minimum
                                        + (double) (maximum - minimum) * k * (k + 1) / ((double) points * (points - 1));
                            // A constant ratio from the minimum to the maximum.
                        case "geometric", "exponential" -> minimum <= 0 || points == 1
                                ? minimum
                                : minimum * Math.pow((double) maximum / minimum, (double) k / (points - 1));
                            // Evenly spaced.
                        default -> minimum + (double) BACKOFF_STEP * k;
                    };
            delays.add((int) Math.min(delay, maximum));
        }
        return delays;
    }

    private static int count(JsonNode policy, String key, int fallback) {
        JsonNode value = policy.get(key);
        return value != null && value.canConvertToInt() && value.intValue() >= 0 ? value.intValue() : fallback;
    }

    /** Largest count of retries in one phase of a policy. */
    static final int MAX_RETRIES_PER_PHASE = 100;
    /** Largest delay a policy may name, in seconds. */
    static final int MAX_POLICY_DELAY = 86400;

    /**
     * Refuses a {@code _retry_policy} (a queue's or a subscription's) that is not an object of Zaqar's keys
     * within bounds, naming the key and the bound.
     */
    public static void validatePolicy(String field, JsonNode policy) {
        if (policy == null || policy.isNull()) {
            return;
        }
        if (!policy.isObject()) {
            throw Rejection.invalidRequest(field + " must be an object.");
        }
        var names = policy.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            JsonNode value = policy.get(name);
            switch (name) {
                case "retries_with_no_delay", "minimum_delay_retries", "maximum_delay_retries" -> bounded(
                        field, name, value, MAX_RETRIES_PER_PHASE);
                case "minimum_delay", "maximum_delay" -> bounded(field, name, value, MAX_POLICY_DELAY);
                case "retry_backoff_function" -> {
                    if (!value.isTextual()
                            || !Set.of("linear", "arithmetic", "geometric", "exponential")
                                    .contains(value.asText())) {
                        throw Rejection.invalidRequest(field + ".retry_backoff_function must be "
                                + "one of linear, arithmetic, geometric, exponential.");
                    }
                }
                case "ignore_subscription_override" -> {
                    if (!value.isBoolean()) {
                        throw Rejection.invalidRequest(field + ".ignore_subscription_override must be a boolean.");
                    }
                }
                default -> throw Rejection.invalidRequest(field + " has an unknown key \"" + name
                        + "\"; known: retries_with_no_delay, minimum_delay_retries, minimum_delay, maximum_delay, "
                        + "maximum_delay_retries, retry_backoff_function, ignore_subscription_override.");
            }
        }
        int minimum = count(policy, "minimum_delay", MINIMUM_DELAY);
        int maximum = count(policy, "maximum_delay", MAXIMUM_DELAY);
        if (minimum > maximum) {
            throw Rejection.invalidRequest(field + ".minimum_delay (" + minimum + ") must not exceed " + field
                    + ".maximum_delay (" + maximum + ").");
        }
    }

    private static void bounded(String field, String name, JsonNode value, int max) {
        if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 0 || value.intValue() > max) {
            throw Rejection.invalidRequest(field + "." + name + " must be an integer from 0 to " + max + ".");
        }
    }
}
