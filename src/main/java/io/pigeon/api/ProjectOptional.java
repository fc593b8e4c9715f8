package io.pigeon.api;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the protected resource methods whose caller need not act for one project: a token is required as for every
 * protected method, but one that grants several projects (or none, the operator's) is admitted without
 * {@code X-Project-Id}, and the method decides what such a caller may read. Bound to the matched method, as
 * {@link Public} is, at build time.
 */
@NameBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface ProjectOptional {}
