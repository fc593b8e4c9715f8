package io.pigeon.api.ws;

import io.pigeon.api.AllowListSetting;
import io.pigeon.api.Authority;
import io.pigeon.api.ErrorDocument;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The web pages that may open a socket, by their origin. A browser lets any page open a websocket to any address and
 * sends no preflight; what it does send is the page's {@code Origin}, which no script can change. Without this check a
 * page from anywhere, open in a browser that can reach Pigeon, drives a socket as the browser's network position
 * allows: with auth {@code none} it reads and deletes any project's queues.
 *
 * <p>Allowed: Pigeon's own origin, that is an {@code Origin} whose host and port are those of the request's
 * {@code Host} (the scheme is not compared: behind a proxy that ends TLS, Pigeon cannot tell which one the page used),
 * and the origins listed in {@value #SETTING}, or any with {@code *} alone. A request with no {@code Origin} does not
 * come from a page (python-zaqarclient's websocket-client sends one, {@code http://} and the {@code Host} it sends, so
 * it is same-origin). {@code null} (a sandboxed or local page) and anything that is not {@code scheme://host[:port]}
 * are refused unless {@code *} is set. The same default holds with OIDC: the token still decides what a socket may do,
 * but a page another site serves should not be the one holding it.
 */
public final class SocketOrigins {

    public static final String SETTING = "pigeon.websocket.allowed-origins";

    private static final Pattern ORIGIN = Pattern.compile("([a-z][a-z0-9+.-]*)://(.+)");

    /** A page's origin: its scheme and authority, the port made explicit where the scheme has a default. */
    record Origin(String scheme, String host, int port) {

        static Optional<Origin> parse(String text) {
            Matcher origin = ORIGIN.matcher(text.toLowerCase(Locale.ROOT));
            if (!origin.matches()) {
                return Optional.empty();
            }
            String scheme = origin.group(1);
            return Authority.parse(origin.group(2))
                    .map(authority -> new Origin(scheme, authority.host(), authority.portOr(defaultPort(scheme))));
        }

        static int defaultPort(String scheme) {
            return switch (scheme) {
                case "http", "ws" -> 80;
                case "https", "wss" -> 443;
                default -> Authority.NO_PORT;
            };
        }
    }

    private final boolean anyOrigin;
    private final Set<Origin> listed;

    private SocketOrigins(boolean anyOrigin, Set<Origin> listed) {
        this.anyOrigin = anyOrigin;
        this.listed = Set.copyOf(listed);
    }

    /**
     * The origins allowed given the setting's entries.
     *
     * @throws IllegalArgumentException naming the setting, for an entry that is not {@code http(s)://host[:port]} or
     *     {@code *} alone
     */
    static SocketOrigins of(Optional<List<String>> configured) {
        AllowListSetting setting = AllowListSetting.of(SETTING, configured, "any origin");
        if (setting.any()) {
            return new SocketOrigins(true, Set.of());
        }
        List<String> entries = setting.entries();
        Set<Origin> listed = new HashSet<>();
        for (String entry : entries) {
            listed.add(Origin.parse(entry)
                    .filter(origin ->
                            origin.scheme().equals("http") || origin.scheme().equals("https"))
                    .orElseThrow(() -> new IllegalArgumentException(SETTING + ": '" + ErrorDocument.printable(entry)
                            + "' is not an origin (http:// or https://, a host, an optional port; no path, not even"
                            + " '/'), nor * alone")));
        }
        return new SocketOrigins(false, listed);
    }

    /**
     * Whether a page whose origin is {@code origin} may open a socket by a request whose {@code Host} is {@code host}
     * (null when it sent none).
     */
    boolean allows(String origin, String host) {
        if (anyOrigin) {
            return true;
        }
        Optional<Origin> page = Origin.parse(origin);
        if (page.isEmpty()) {
            return false;
        }
        if (listed.contains(page.get())) {
            return true;
        }
        Optional<Authority> served = host == null ? Optional.empty() : Authority.parse(host.trim());
        return served.isPresent()
                && served.get().host().equals(page.get().host())
                && served.get().portOr(Origin.defaultPort(page.get().scheme()))
                        == page.get().port();
    }
}
