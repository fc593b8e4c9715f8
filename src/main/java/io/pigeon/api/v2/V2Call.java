package io.pigeon.api.v2;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the v2 resources whose calls must name their project and client ({@link V2RequestHeaders}): every
 * v2 call but the discovery documents. Bound to the matched method, whatever the spelling of its path.
 */
@NameBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface V2Call {}
