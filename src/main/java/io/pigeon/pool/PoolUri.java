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
 * A pool's address: a PostgreSQL URL, {@code postgresql://user:password@host:port/database?parameters} (or
 * {@code postgres://}). Valid by construction. Its password (in the user part, or as a {@code password} parameter)
 * is never shown: {@link #redacted()} is the only form that goes into answers and logs.
 */
public final class PoolUri {

    public static final int MAX_LENGTH = 255;
    private static final String HIDDEN = "*****";

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

    public static PoolUri parse(String text) {
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
        return address(shown);
    }

    /** The JDBC URL of the same server and database, without credentials (given apart, see {@link #user()}). */
    public String jdbcUrl() {
        return address(new StringBuilder("jdbc:postgresql://"));
    }

    /** {@code start} followed by host, port, database and the parameters other than credentials. */
    private String address(StringBuilder start) {
        start.append(host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host).append(':').append(port)
                .append('/').append(database);
        String separator = "?";
        for (String[] parameter : parameters) {
            start.append(separator).append(parameter[0]).append('=').append(parameter[1]);
            separator = "&";
        }
        return start.toString();
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
