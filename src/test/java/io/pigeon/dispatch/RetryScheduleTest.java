package io.pigeon.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pigeon.testing.TestConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** When a failed group is called again: /v3 backoff and Zaqar's retry policies, table-driven, without a server. */
class RetryScheduleTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DispatchSettings DEFAULTS = TestConfig.settings(DispatchSettings.class, Map.of());

    private static Optional<Duration> next(int attempts, String policy) {
        return RetrySchedule.next(attempts, Duration.ofSeconds(10), policy, DEFAULTS);
    }

    @ParameterizedTest(name = "/v3, after call {0}: {1} ms")
    @CsvSource({"1, 1000", "2, 2000", "3, 4000", "5, 16000", "9, 256000", "10, -1"})
    void aV3GroupDoublesItsDelayUpToItsLastAttempt(int attempts, long millis) {
        Optional<Duration> delay = next(attempts, null);
        assertEquals(millis < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(millis)), delay);
    }

    @Test
    void theDelayIsCappedAndAnOldGroupIsNotRetried() {
        DispatchSettings capped = TestConfig.settings(
                DispatchSettings.class,
                Map.of("pigeon.dispatch.retry-max", "10s", "pigeon.dispatch.max-attempts", "100"));
        assertEquals(Optional.of(Duration.ofSeconds(10)), RetrySchedule.next(5, Duration.ZERO, null, capped));
        assertEquals(Optional.of(Duration.ofSeconds(10)), RetrySchedule.next(80, Duration.ZERO, null, capped));
        assertEquals(Optional.empty(), RetrySchedule.next(1, Duration.ofDays(1), null, DEFAULTS));
        assertEquals(Optional.empty(), RetrySchedule.next(1, Duration.ofDays(2), "{}", DEFAULTS));
    }

    /** Zaqar's defaults: 3 immediate retries, 3 at 5 s, linear 5..30 s by 5 s, 3 at 30 s; then dead. */
    @Test
    void zaqarsDefaultPolicy() {
        List<Integer> expected = List.of(0, 0, 0, 5, 5, 5, 5, 10, 15, 20, 25, 30, 30, 30);
        for (int attempt = 1; attempt <= expected.size(); attempt++) {
            assertEquals(
                    Optional.of(Duration.ofSeconds(expected.get(attempt - 1))), next(attempt, "{}"), "call " + attempt);
        }
        assertEquals(Optional.empty(), next(expected.size() + 1, "{}"));
    }

    @ParameterizedTest(name = "{0} from 5 to 30 s")
    @CsvSource(
            delimiter = '|',
            value = {
                "linear      | 5,10,15,20,25",
                "arithmetic  | 5,7,12,20,30",
                "geometric   | 5,7,12,19,30",
                "exponential | 5,7,12,19,30"
            })
    void backoffFunctions(String function, String delays) {
        List<Integer> expected =
                Arrays.stream(delays.split(",")).map(Integer::parseInt).toList();
        assertEquals(expected, RetrySchedule.backoff(function, 5, 30));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                // The subscription's policy wins, unless either side sets ignore_subscription_override.
                "{\"queue\": {\"minimum_delay\": 7}, \"subscription\": {\"minimum_delay\": 9}}                                      | 9",
                "{\"queue\": {\"minimum_delay\": 7, \"ignore_subscription_override\": true}, \"subscription\": {\"minimum_delay\": 9}} | 7",
                "{\"queue\": {\"minimum_delay\": 7}, \"subscription\": {\"minimum_delay\": 9, \"ignore_subscription_override\": true}} | 7",
                "{\"queue\": {\"minimum_delay\": 7}}                                                                               | 7",
                "{}                                                                                                             | 5",
                "not json                                                                                                       | 5"
            })
    void whichPolicyApplies(String stored, int minimumDelay) {
        JsonNode policy = RetrySchedule.resolve(stored);
        // The fourth call is the first at the minimum delay (after three immediate ones).
        assertEquals(minimumDelay, RetrySchedule.subscriptionDelays(policy).get(3));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "[1]                                               | must be an object",
                "{\"retries\": 1}                                  | unknown key \"retries\"",
                "{\"retries_with_no_delay\": -1}                   | retries_with_no_delay must be an integer from 0 to 100",
                "{\"minimum_delay_retries\": 101}                  | minimum_delay_retries must be an integer from 0 to 100",
                "{\"maximum_delay\": 86401}                        | maximum_delay must be an integer from 0 to 86400",
                "{\"minimum_delay\": 1.5}                          | minimum_delay must be an integer",
                "{\"retry_backoff_function\": \"cubic\"}           | retry_backoff_function must be one of",
                "{\"ignore_subscription_override\": \"yes\"}       | ignore_subscription_override must be a boolean",
                "{\"minimum_delay\": 40, \"maximum_delay\": 30}    | minimum_delay (40) must not exceed"
            })
    void invalidPoliciesAreRefusedNamingTheKeyAndTheBound(String policy, String message) throws Exception {
        RuntimeException refused = assertThrows(
                RuntimeException.class,
                () -> RetrySchedule.validatePolicy("options._retry_policy", JSON.readTree(policy)));
        assertTrue(refused.getMessage().contains(message), refused.getMessage());
        assertTrue(refused.getMessage().contains("options._retry_policy"), refused.getMessage());
    }

    @Test
    void aValidPolicyPasses() throws Exception {
        RetrySchedule.validatePolicy(
                "_retry_policy",
                JSON.readTree(
                        "{\"retries_with_no_delay\": 0, \"minimum_delay\": 1, "
                                + "\"maximum_delay\": 100, \"retry_backoff_function\": \"geometric\", \"ignore_subscription_override\": false}"));
        RetrySchedule.validatePolicy("_retry_policy", null);
    }
}
