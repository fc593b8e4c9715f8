package io.pigeon.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A check whose cost is mostly volume or real waiting (a fuzzer, a crash and restart, a long dispatch window).
 * {@code ./mvnw test} leaves these out so that the inner loop stays short; {@code bash .ci/run} runs them with the
 * rest (pom.xml: {@code tests.excluded-tags}).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("slow")
public @interface Slow {}
