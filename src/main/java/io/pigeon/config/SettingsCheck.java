package io.pigeon.config;

import io.quarkus.runtime.configuration.DurationConverter;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The bounds of Pigeon's settings that a constraint on one method cannot say: relations between settings (a renewal
 * below its lease, a default within its maximum), durations written as text ({@code off} or a duration), the keys
 * (signing keys of at least 32 bytes, message keys of 32 bytes in base64, ids of their form, the chosen key among
 * them), the target lists and the URLs. Each problem is one line naming the setting and its bound; SmallRye Config
 * prints them and stops the start before anything else starts ({@link ValidSettings}). The bounds of single numbers
 * and durations are the constraints on {@link PigeonConfig}'s methods.
 */
public class SettingsCheck implements ConstraintValidator<ValidSettings, PigeonConfig> {

    @Override
    public boolean isValid(PigeonConfig config, ConstraintValidatorContext context) {
        List<String> problems = problems(config);
        if (problems.isEmpty()) {
            return true;
        }
        context.disableDefaultConstraintViolation();
        for (String problem : problems) {
            // SmallRye prints "pigeon <message>" for a violation of the whole mapping.
            context.buildConstraintViolationWithTemplate(escaped("settings: " + problem))
                    .addConstraintViolation();
        }
        return false;
    }

    /** Each setting out of its bound, as one line naming it and the bound; empty when every one is within. */
    public static List<String> problems(PigeonConfig config) {
        List<String> problems = new ArrayList<>();
        atMost(
                problems,
                "pigeon.default-message-ttl",
                config.defaultMessageTtl(),
                "pigeon.max-message-ttl",
                config.maxMessageTtl());
        atMost(
                problems,
                "pigeon.default-claim-ttl",
                config.defaultClaimTtl(),
                "pigeon.max-claim-ttl",
                config.maxClaimTtl());
        atMost(
                problems,
                "pigeon.default-claim-grace",
                config.defaultClaimGrace(),
                "pigeon.max-claim-grace",
                config.maxClaimGrace());
        atMost(
                problems,
                "pigeon.idempotency.default-window",
                config.idempotency().defaultWindow(),
                "pigeon.idempotency.max-window",
                config.idempotency().maxWindow());
        atMost(
                problems,
                "pigeon.redrive.default-rate",
                config.redrive().defaultRate(),
                "pigeon.redrive.max-rate",
                config.redrive().maxRate());
        atMost(
                problems,
                "pigeon.redrive.max-running-per-project-per-replica",
                config.redrive().maxRunningPerProjectPerReplica(),
                "pigeon.redrive.max-running-per-replica",
                config.redrive().maxRunningPerReplica());
        below(
                problems,
                "pigeon.socket-subscriptions.renewal",
                config.socketSubscriptions().renewal(),
                "pigeon.socket-subscriptions.lease",
                config.socketSubscriptions().lease());
        below(
                problems,
                "pigeon.claim-wait.renewal",
                config.claimWait().renewal(),
                "pigeon.claim-wait.lease",
                config.claimWait().lease());
        if (config.dispatch().retryInitial().compareTo(config.dispatch().retryMax()) > 0) {
            problems.add("pigeon.dispatch.retry-initial (" + config.dispatch().retryInitial()
                    + ") must be at most pigeon.dispatch.retry-max ("
                    + config.dispatch().retryMax() + ")");
        }
        below(
                problems,
                "pigeon.dispatch.ontime-horizon",
                config.dispatch().ontimeHorizon(),
                "pigeon.dispatch.max-pending-age",
                config.dispatch().maxPendingAge());
        interval(problems, "pigeon.quotas.check-interval", config.quotas().checkInterval(), false);
        interval(problems, "pigeon.vacuum.interval", config.vacuum().interval(), true);
        interval(problems, "pigeon.sweeper.interval", config.sweeper().interval(), true);
        hostWildcards(problems, config.http().allowedHosts());
        keys(problems, config);
        targets(problems, config.dispatch());
        url(
                problems,
                "pigeon.notification.mail.confirmation-url",
                config.notification().mail().confirmationUrl());
        url(
                problems,
                "pigeon.notification.mail.public-url",
                config.notification().mail().publicUrl());
        config.console().sessionSecret().filter(secret -> !secret.isEmpty()).ifPresent(secret -> {
            if (secret.length() < MIN_CONSOLE_SECRET_CHARACTERS) {
                problems.add("pigeon.console.session-secret is " + secret.length() + " characters; it needs at least "
                        + MIN_CONSOLE_SECRET_CHARACTERS + " (or leave it unset)");
            }
        });
        return problems;
    }

    /** The shortest console session secret accepted. */
    public static final int MIN_CONSOLE_SECRET_CHARACTERS = 32;

    private static void atMost(List<String> problems, String setting, int value, String bound, int boundValue) {
        if (value > boundValue) {
            problems.add(setting + " (" + value + ") must be at most " + bound + " (" + boundValue + ")");
        }
    }

    private static void below(
            List<String> problems, String setting, Duration value, String bound, Duration boundValue) {
        if (value.compareTo(boundValue) >= 0) {
            problems.add(setting + " (" + value + ") must be below " + bound + " (" + boundValue + ")");
        }
    }

    /** A scheduler's period: a duration above 0 ({@code 30s}, {@code PT1M}), or {@code off} where it may be off. */
    private static void interval(List<String> problems, String setting, String value, boolean mayBeOff) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        if (mayBeOff && (text.equals("off") || text.equals("disabled"))) {
            return;
        }
        String bound = "a duration above 0 (e.g. 30s)" + (mayBeOff ? " or off" : "");
        try {
            Duration duration = DurationConverter.parseDuration(value.trim());
            if (duration == null || duration.isNegative() || duration.isZero()) {
                problems.add(setting + " is " + value + "; it must be " + bound);
            }
        } catch (RuntimeException notADuration) {
            problems.add(setting + " is " + value + "; it must be " + bound);
        }
    }

    /**
     * A wildcard host with one label after the star ({@code *.com}, {@code *.localhost}) would serve every name under a
     * top-level name, DNS rebinding for all of them (ServedHosts refuses it too; here it stops the start before
     * anything else starts).
     */
    private static void hostWildcards(List<String> problems, Optional<List<String>> hosts) {
        for (String entry : hosts.orElse(List.of())) {
            String trimmed = entry.strip();
            if (trimmed.startsWith("*.")
                    && trimmed.length() > 2
                    && !trimmed.substring(2).contains(".")) {
                problems.add("pigeon.http.allowed-hosts: '" + trimmed + "' covers every name under one label; a"
                        + " wildcard needs at least two labels after the star (*.example.com)");
            }
        }
    }

    private static void keys(List<String> problems, PigeonConfig config) {
        Map<String, byte[]> signing = guarded(problems, () -> KeySettings.signingKeys(config.signedUrl()));
        if (signing != null) {
            guarded(problems, () -> KeySettings.signingKeyId(config.signedUrl(), signing));
        }
        Map<String, String> texts = guarded(problems, () -> KeySettings.encryptionKeyTexts(config.encryption(), false));
        if (texts != null) {
            texts.forEach((id, text) -> guarded(problems, () -> KeySettings.encryptionKey(id, text)));
            guarded(
                    problems,
                    () -> KeySettings.currentEncryptionKey(
                            texts.keySet(), config.encryption().currentKey()));
        }
    }

    private static void targets(List<String> problems, PigeonConfig.Dispatch dispatch) {
        for (String entry : dispatch.allowedTargets().orElse(List.of())) {
            String trimmed = entry.trim().toLowerCase(Locale.ROOT);
            if (trimmed.contains("/")) {
                guarded(problems, () -> TargetSettings.cidr(trimmed));
            }
        }
        for (String entry : dispatch.allowedPorts()) {
            guarded(problems, () -> TargetSettings.ports(entry.trim()));
        }
    }

    /** An absolute http or https URL with a host. */
    private static void url(List<String> problems, String setting, Optional<String> value) {
        value.filter(text -> !text.isBlank()).ifPresent(text -> {
            boolean ok;
            try {
                URI uri = new URI(text.trim());
                ok = uri.getScheme() != null
                        && (uri.getScheme().equalsIgnoreCase("http")
                                || uri.getScheme().equalsIgnoreCase("https"))
                        && uri.getHost() != null;
            } catch (URISyntaxException e) {
                ok = false;
            }
            if (!ok) {
                problems.add(setting + " is " + text + "; it must be an absolute http or https URL");
            }
        });
    }

    /** What {@code check} gives, or null with its failure's message added to the problems. */
    private static <T> T guarded(List<String> problems, Supplier<T> check) {
        try {
            return check.get();
        } catch (RuntimeException refused) {
            problems.add(refused.getMessage());
            return null;
        }
    }

    /** The text as a message template that interpolates nothing. */
    private static String escaped(String text) {
        return text.replace("\\", "\\\\")
                .replace("{", "\\{")
                .replace("}", "\\}")
                .replace("$", "\\$");
    }
}
