package io.pigeon.api;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the resource methods whose project is their {@code {project}} path parameter, not the {@code X-Project-Id}
 * header (the depth endpoint an autoscaler reads, which sends no Zaqar headers): the caller is admitted for that
 * project, exactly as for a header's, and a header sent too is not read. Bound to the method the router matched,
 * at build time, as {@link Public} is.
 */
@NameBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface ProjectInPath {}
