package io.pigeon.config;

import io.quarkus.runtime.configuration.DurationConverter;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Turns the bounds each settings mapping states itself ({@link CheckedSettings#problems()}: relations between its
 * settings, durations written as text, keys, lists, URLs) into constraint violations: each problem is one line naming
 * the setting and its bound; SmallRye Config prints them and stops the start before anything else starts
 * ({@link ValidSettings}). The bounds of single numbers and durations are the constraints on the mappings' methods.
 * The checks the mappings share are here, so that the same kind of bound reads the same whichever feature owns it.
 */
public class SettingsCheck implements ConstraintValidator<ValidSettings, CheckedSettings> {

    @Override
    public boolean isValid(CheckedSettings settings, ConstraintValidatorContext context) {
        List<String> problems = settings.problems();
        if (problems.isEmpty()) {
            return true;
        }
        context.disableDefaultConstraintViolation();
        for (String problem : problems) {
            // SmallRye prints "<prefix> <message>" (e.g. "pigeon.dispatch settings: ...") for a violation of a mapping.
            context.buildConstraintViolationWithTemplate(escaped("settings: " + problem))
                    .addConstraintViolation();
        }
        return false;
    }

    /** {@code setting} at most the setting {@code bound}. */
    public static void atMost(List<String> problems, String setting, int value, String bound, int boundValue) {
        if (value > boundValue) {
            problems.add(setting + " (" + value + ") must be at most " + bound + " (" + boundValue + ")");
        }
    }

    /** {@code setting} at most the setting {@code bound}. */
    public static void atMost(
            List<String> problems, String setting, Duration value, String bound, Duration boundValue) {
        if (value.compareTo(boundValue) > 0) {
            problems.add(setting + " (" + value + ") must be at most " + bound + " (" + boundValue + ")");
        }
    }

    /** {@code setting} strictly below the setting {@code bound}. */
    public static void below(List<String> problems, String setting, Duration value, String bound, Duration boundValue) {
        if (value.compareTo(boundValue) >= 0) {
            problems.add(setting + " (" + value + ") must be below " + bound + " (" + boundValue + ")");
        }
    }

    /** A scheduler's period: a duration above 0 ({@code 30s}, {@code PT1M}), or {@code off} where it may be off. */
    public static void interval(List<String> problems, String setting, String value, boolean mayBeOff) {
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

    /** An absolute http or https URL with a host. */
    public static void url(List<String> problems, String setting, Optional<String> value) {
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
    public static <T> T guarded(List<String> problems, Supplier<T> check) {
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
