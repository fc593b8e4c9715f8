package io.pigeon.config;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import jakarta.validation.ReportAsSingleViolation;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.hibernate.validator.constraints.time.DurationMin;

/**
 * The bound of most durations among the settings: above 0 (a zero or negative timeout, period or lease would stop
 * what it paces, or spin). Hibernate Validator's own message says "1 milli"; this says what an operator writes.
 */
@DurationMin(millis = 1)
@ReportAsSingleViolation
@Constraint(validatedBy = {})
@Target({ElementType.METHOD, ElementType.TYPE_USE})
@Retention(RetentionPolicy.RUNTIME)
public @interface PositiveDuration {
    String message() default "must be a duration above 0 (e.g. 30s)";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
