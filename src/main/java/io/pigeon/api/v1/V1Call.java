package io.pigeon.api.v1;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the v1 resources ({@link V1RequestHeaders}): a {@code Client-ID} is optional on most v1 calls, but one
 * that is sent must be a UUID. Bound to the matched method, whatever the spelling of its path.
 */
@NameBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface V1Call {}
