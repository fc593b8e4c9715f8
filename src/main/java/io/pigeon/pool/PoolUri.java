package io.pigeon.pool;

import io.pigeon.rules.Rejection;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A pool's address: a PostgreSQL URL,
 * {@code postgresql://user:password@host:port/database?parameters} (or
 * {@code postgres://}). Valid by construction. Its password (in the user part, or as a {@code password} parameter)
 * is never shown: {@link #redacted()} is the only form that goes into answers and logs, and in it the value of every
 * parameter whose name holds "password" or "key" is hidden too.
 *
 * <p>Of the URL's parameters only {@link #DRIVER_PARAMETERS} (and the credentials) reach a driver: the JDBC driver
 * that migrates a pool reads others that load classes or write files ({@code socketFactory}, {@code sslfactory},
 * {@code loggerFile}), and the reactive client sends unknown ones to the server as settings. A new URL with another
 * parameter is refused; one stored before the list existed is read, and its other parameters are left out.
 */
public final class PoolUri {

    public static final int MAX_LENGTH = 255;
    private static final String HIDDEN = "*****";

    /** The parameters a pool's URL may pass to the drivers, besides {@code user} and {@code password}. */
    public static final List<String> DRIVER_PARAMETERS = List.of("sslmode", "application_name");
    private static final List<String> SSL_MODES = List.of("disable", "allow", "prefer", "require", "verify-ca",
            "verify-full");

    private final String text;
    private final String host;
    private final int port;
    private final String database;
    private final String user;
    private final String password;
    private final List<String[]> parameters;

    private PoolUri(String text, String host, int port, String database, String user, String password,
            List<String[]> parameters) {
        this.text = text;
        this.host = host;
        this.port = port;
        this.database = database;
        this.user = user;
        this.password = password;
        this.parameters = parameters;
    }

    /** A new pool's URL, as the operator gives it: a parameter outside {@link #DRIVER_PARAMETERS} is refused (400). */
    public static PoolUri parse(String text) {
        PoolUri uri = stored(text);
        for (String[] parameter : uri.parameters) {
            if (!DRIVER_PARAMETERS.contains(parameter[0])) {
                throw Rejection.invalidRequest("uri parameter \"" + shown(parameter[0], 64) + "\" is not passed to the "
                        + "database driver; a pool's uri may set only " + String.join(", ", DRIVER_PARAMETERS)
                        + " (and user, password).");
            }
            if (parameter[0].equals("sslmode") && !SSL_MODES.contains(parameter[1])) {
                throw Rejection.invalidRequest("uri parameter sslmode must be one of " + String.join(", ", SSL_MODES) + ".");
            }
        }
        return uri;
    }

    /**
     * A URL from the catalogue: parsed as {@link #parse} does, but a parameter outside {@link #DRIVER_PARAMETERS} (from
     * a pool registered before that list) is kept for answers, redacted, and never given to a driver.
     */
    public static PoolUri stored(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_LENGTH) {
            throw invalid();
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw invalid();
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        if (!(scheme.equals("postgresql") || scheme.equals("postgres")) || uri.getHost() == null
                || !path.matches("/[^/]+") || uri.getRawFragment() != null) {
            throw invalid();
        }
        String user = null;
        String password = null;
        if (uri.getRawUserInfo() != null) {
            String[] parts = uri.getRawUserInfo().split(":", 2);
            user = decode(parts[0]);
            password = parts.length > 1 ? decode(parts[1]) : null;
        }
        List<String[]> parameters = new ArrayList<>();
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                String[] kv = pair.split("=", 2);
                String name = decode(kv[0]);
                String value = kv.length > 1 ? decode(kv[1]) : "";
                if (name.equals("password")) {
                    password = value;
                } else if (name.equals("user")) {
                    user = value;
                } else {
                    parameters.add(new String[] {name, value});
                }
            }
        }
        return new PoolUri(text, uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), decode(path.substring(1)), user,
                password, parameters);
    }

    private static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static Rejection invalid() {
        return Rejection.invalidRequest("uri must be a PostgreSQL URL of at most " + MAX_LENGTH
                + " characters: postgresql://user:password@host:port/database");
    }

    /** The URL as the operator gave it, password included: for the catalogue's own table only. */
    public String text() {
        return text;
    }

    /** The URL with its password replaced, for answers and logs. */
    public String redacted() {
        StringBuilder shown = new StringBuilder("postgresql://");
        if (user != null) {
            shown.append(user);
            if (password != null) {
                shown.append(':').append(HIDDEN);
            }
            shown.append('@');
        }
        return address(shown, true);
    }

    /** The JDBC URL of the same server and database, without credentials (given apart, see {@link #user()}). */
    public String jdbcUrl() {
        return address(new StringBuilder("jdbc:postgresql://"), false);
    }

    /**
     * {@code start} followed by host, port, database and the parameters other than credentials: for a driver
     * ({@code forPeople} false) only {@link #DRIVER_PARAMETERS}; for answers and logs every one, a secret's value hidden.
     */
    private String address(StringBuilder start, boolean forPeople) {
        start.append(host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host).append(':').append(port)
                .append('/').append(database);
        String separator = "?";
        for (String[] parameter : parameters) {
            boolean driven = DRIVER_PARAMETERS.contains(parameter[0]);
            if (!driven && !forPeople) {
                continue;
            }
            String value = isSecret(parameter[0]) ? HIDDEN : driven ? parameter[1] : shown(parameter[1], 64);
            start.append(separator).append(driven ? parameter[0] : shown(parameter[0], 64)).append('=').append(value);
            separator = "&";
        }
        return start.toString();
    }

    /** A parameter that names a secret: its name holds "password" or "key", in any case. */
    static boolean isSecret(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.contains("password") || lower.contains("key");
    }

    /** Text as answers and logs may show it: printable ASCII (others, and {@code &} and {@code =}, %-escaped), cut. */
    private static String shown(String text, int max) {
        StringBuilder shown = new StringBuilder();
        text.codePoints().limit(max).forEach(c -> {
            if (c > 0x20 && c < 0x7f && c != '&' && c != '=' && c != '%') {
                shown.appendCodePoint(c);
            } else {
                shown.append('%').append(String.format("%02X", c & 0xff));
            }
        });
        return shown.toString();
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String database() {
        return database;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    @Override
    public String toString() {
        return redacted();
    }
}
