package io.pigeon.api.console;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the console's pages that act for a user: in OIDC mode {@link ConsoleSignIn} runs before them and makes the
 * browser sign in first. Bound to the matched method at build time, as the API's marks are, so no spelling of a path
 * reaches a page without it.
 */
@NameBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@interface ConsoleSignedIn {}
