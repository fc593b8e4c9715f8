package io.pigeon.config;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Puts {@link SettingsCheck} on a settings mapping ({@link PigeonConfig} and each feature's own, all
 * {@link CheckedSettings}): SmallRye Config validates the mappings as the configuration is read, first thing at start,
 * before the database is reached, so that a setting out of its bound stops the start with a line naming it, instead of
 * failing requests later.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = SettingsCheck.class)
public @interface ValidSettings {
    String message() default "settings out of their bounds";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
