package io.pigeon.api.sqs;

import io.pigeon.sqs.Printable;
import io.pigeon.sqs.SqsRefusal;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Queue URLs, {@code <scheme>://<host>/<12-digit account id>/<queue name>}: built from the host the caller reached
 * (the JavaScript SDK v3 sends each request to its queue URL's host, so the URL must name one the caller can reach),
 * read back by account and name only, never by host. A path is read exactly as sent: one spelling only, no percent
 * escapes, no dot segments, no empty segment, no trailing slash; any other spelling names no queue.
 */
final class QueueUrls {

    /** A queue's path: the account id and the queue's name, nothing else. */
    private static final Pattern PATH =
            Pattern.compile("/([0-9]{12})/([A-Za-z0-9_-]{1,75}\\.fifo|[A-Za-z0-9_-]{1,80})");
    /** A URL's scheme and authority (up to the path's first slash). */
    private static final Pattern ORIGIN = Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)(.*)", Pattern.DOTALL);

    /** The account and queue name a URL or path names. */
    record Address(String account, String name) {}

    private QueueUrls() {}

    /** The URL of queue {@code name} of {@code account}, as reached at {@code origin} ({@code scheme://host[:port]}). */
    static String url(String origin, String account, String name) {
        return origin + "/" + account + "/" + name;
    }

    /** A queue's name alone, as a {@code QueueUrl} may give it. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,75}\\.fifo|[A-Za-z0-9_-]{1,80}");

    /**
     * The queue a {@code QueueUrl} parameter names: a URL, or a queue's name alone, which names the caller's own queue
     * ({@code callerAccount}; AWS takes a name there, as a test of moto's verified against AWS shows); any other value
     * is {@code InvalidAddress}.
     */
    static Address ofUrl(String url, String callerAccount) {
        if (NAME.matcher(url).matches()) {
            return new Address(callerAccount, url);
        }
        Matcher origin = ORIGIN.matcher(url);
        if (!origin.matches()) {
            throw invalidAddress(url);
        }
        String scheme = origin.group(1).toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || origin.group(2).isEmpty()) {
            throw invalidAddress(url);
        }
        return ofPath(origin.group(3));
    }

    /** The queue a request path names, spelled exactly; any other spelling is a queue that does not exist. */
    static Address ofPath(String path) {
        Matcher queue = PATH.matcher(path);
        if (!queue.matches()) {
            throw SqsRefusal.queueDoesNotExist();
        }
        return new Address(queue.group(1), queue.group(2));
    }

    /** Whether a request's path is a queue's (it starts with a slash and twelve digits); spelled well or not. */
    static boolean isQueuePath(String path) {
        if (path.length() < 13 || path.charAt(0) != '/') {
            return false;
        }
        for (int i = 1; i < 13; i++) {
            if (path.charAt(i) < '0' || path.charAt(i) > '9') {
                return false;
            }
        }
        return path.length() == 13 || path.charAt(13) == '/';
    }

    private static SqsRefusal invalidAddress(String url) {
        return new SqsRefusal(
                SqsRefusal.Reason.INVALID_ADDRESS,
                "The address " + Printable.of(url) + " is not valid for this endpoint.");
    }
}
