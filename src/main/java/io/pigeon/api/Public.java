package io.pigeon.api;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the resource methods (or classes) that any caller may use without credentials: discovery
 * documents and the plain health check. Everything else needs a caller. The mark is bound to the method
 * the router matched, never to a path string, so no spelling of a path (double slashes, dot segments,
 * percent-encoding) can make a protected method public. Bound at build time: no reflection.
 */
@NameBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Public {}
