package io.pigeon.api.console;

import io.pigeon.rules.Rejection;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * The console's protection against cross-site requests, a double-submit token: every page with a form sets a random
 * token in an HttpOnly, SameSite=Strict cookie scoped to {@code /console} and writes the same token into the form's
 * hidden field; a POST is carried out only when both are present and equal (compared in constant time). Another site
 * can make a browser send the cookie (not even that, with SameSite=Strict) but can read neither it nor the page, so it
 * cannot fill in the field. A browser that says the request comes from another site ({@code Sec-Fetch-Site}) or
 * another origin ({@code Origin}) is refused before the token is looked at.
 */
final class ConsoleForms {

    static final String COOKIE = "pigeon-console-csrf";
    static final String FIELD = "csrf";

    private static final int TOKEN_BYTES = 32;
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_-]{43}");
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Rejection MISMATCH = new Rejection(
            Rejection.Reason.FORBIDDEN,
            "The form's token (field \"" + FIELD + "\") is missing or does not match this browser's console cookie ("
                    + COOKIE + "): reload the page and submit the form again.");

    private ConsoleForms() {}

    /** What a POST brings for the check: the form's token field and what the browser says of where it came from. */
    record Sent(String field, String fetchSite, String origin, String host) {}

    /** The browser's token when it sent a well-formed one, else a new one (set again with every page). */
    static String token(String cookie) {
        if (cookie != null && TOKEN.matcher(cookie).matches()) {
            return cookie;
        }
        byte[] bytes = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** The Set-Cookie value for a token: sent back on /console only, never to scripts, never from another site. */
    static String cookie(String token) {
        return COOKIE + "=" + token + "; Path=/console; Max-Age=7200; HttpOnly; SameSite=Strict";
    }

    /**
     * Refuses (403) a form whose token does not match the cookie's, or that a browser marks as sent from another site
     * or origin. {@code host} is the request's Host header, which the origin's host must equal.
     */
    static void check(String cookie, Sent sent) {
        checkSite(sent.fetchSite(), sent.origin(), sent.host());
        String field = sent.field();
        if (cookie == null
                || field == null
                || !TOKEN.matcher(cookie).matches()
                || !MessageDigest.isEqual(
                        cookie.getBytes(StandardCharsets.US_ASCII), field.getBytes(StandardCharsets.US_ASCII))) {
            throw MISMATCH;
        }
    }

    /**
     * Refuses (403) a request a browser marks as sent from another site ({@code Sec-Fetch-Site}) or origin
     * ({@code Origin}, whose host must be the request's {@code host}): a form, or a sign-out another site links to.
     */
    static void checkSite(String fetchSite, String origin, String host) {
        if (fetchSite != null && !fetchSite.equals("same-origin") && !fetchSite.equals("none")) {
            throw new Rejection(
                    Rejection.Reason.FORBIDDEN,
                    "The browser says this form was sent from another site (Sec-Fetch-Site: " + printable(fetchSite)
                            + "): the console takes forms from its own pages only.");
        }
        if (origin != null && !origin.equals("null") && (host == null || !sameHost(origin, host))) {
            throw new Rejection(
                    Rejection.Reason.FORBIDDEN,
                    "The form was sent from another origin (Origin: " + printable(origin)
                            + "): the console takes forms from its own pages only.");
        }
    }

    private static boolean sameHost(String origin, String host) {
        int scheme = origin.indexOf("://");
        return scheme > 0 && origin.substring(scheme + 3).equalsIgnoreCase(host);
    }

    private static String printable(String value) {
        String cut = value.length() > 100 ? value.substring(0, 100) + "..." : value;
        return cut.replaceAll("[^\\x20-\\x7e]", "?");
    }
}
