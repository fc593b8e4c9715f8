package io.pigeon.api;

import io.netty.util.NetUtil;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A host and an optional port, as a {@code Host} header, an absolute request target or an {@code Origin} names them
 * (RFC 3986's authority without user info), read strictly so that two spellings of one host compare equal and nothing
 * else does: a name is lower-cased and loses one trailing dot ({@code LOCALHOST.} is {@code localhost}); an IP address
 * is recognised without any lookup. Anything else (user info as in {@code localhost:8080@evil}, percent-encoding,
 * spaces, an empty or out-of-range port, an empty label) is not an authority. Exists so that the check of the
 * {@code Host} ({@link MisdirectedRequests}) and the check of a socket's {@code Origin} read a host the same way.
 *
 * @param host the name (lower case, no trailing dot), IPv4 address, or IPv6 address in brackets (lower case)
 * @param port the port, or {@link #NO_PORT}
 * @param ipLiteral whether {@code host} is an IP address rather than a name
 */
public record Authority(String host, int port, boolean ipLiteral) {

    public static final int NO_PORT = -1;

    /** Longest text read as an authority: a name of 253 characters, a dot, a colon and a port. */
    private static final int MAX_LENGTH = 261;

    /** Labels of letters, digits, '-' and '_' (seen in internal names), separated by single dots. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9_-]+(\\.[a-z0-9_-]+)*");

    private static final Pattern PORT = Pattern.compile("[0-9]{1,5}");

    /** {@code text} read as {@code host[:port]}, or empty when it is not one. */
    public static Optional<Authority> parse(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_LENGTH) {
            return Optional.empty();
        }
        String host;
        String port;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0) {
                return Optional.empty();
            }
            host = text.substring(0, close + 1);
            String rest = text.substring(close + 1);
            if (!rest.isEmpty() && !rest.startsWith(":")) {
                return Optional.empty();
            }
            port = rest.isEmpty() ? null : rest.substring(1);
        } else {
            int colon = text.indexOf(':');
            host = colon < 0 ? text : text.substring(0, colon);
            port = colon < 0 ? null : text.substring(colon + 1);
        }
        if (port != null && (!PORT.matcher(port).matches() || Integer.parseInt(port) > 65535)) {
            return Optional.empty();
        }
        int number = port == null ? NO_PORT : Integer.parseInt(port);
        return host(host).map(read -> new Authority(read.host, number, read.ipLiteral));
    }

    /**
     * {@code text} read as a host alone (a name, an IPv4 address, an IPv6 address with or without brackets), with no
     * port, or empty when it is not one.
     */
    public static Optional<Authority> parseHost(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_LENGTH) {
            return Optional.empty();
        }
        if (!text.startsWith("[") && text.indexOf(':') >= 0) {
            return NetUtil.isValidIpV6Address(text)
                    ? Optional.of(new Authority("[" + text.toLowerCase(Locale.ROOT) + "]", NO_PORT, true))
                    : Optional.empty();
        }
        return host(text);
    }

    private static Optional<Authority> host(String text) {
        if (text.startsWith("[")) {
            String inner = text.substring(1, text.length() - 1);
            return text.endsWith("]") && NetUtil.isValidIpV6Address(inner)
                    ? Optional.of(new Authority("[" + inner.toLowerCase(Locale.ROOT) + "]", NO_PORT, true))
                    : Optional.empty();
        }
        if (NetUtil.isValidIpV4Address(text)) {
            return Optional.of(new Authority(text, NO_PORT, true));
        }
        String name = text.toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        return name.length() <= 253 && NAME.matcher(name).matches()
                ? Optional.of(new Authority(name, NO_PORT, false))
                : Optional.empty();
    }

    /** This authority's port, or {@code otherwise} when it names none. */
    public int portOr(int otherwise) {
        return port == NO_PORT ? otherwise : port;
    }
}
