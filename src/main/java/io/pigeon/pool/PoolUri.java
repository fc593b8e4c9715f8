package io.pigeon.pool;

import io.pigeon.rules.Rejection;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * A pool's address: a PostgreSQL URL,
 * {@code postgresql://user:password@host:port/database?parameters} (or {@code postgres://}), read into parts that
 * are each checked against a short list of characters. The drivers are given those parts only, as structured values
 * ({@link #jdbcUrl()} holds nothing but host, port and database; {@link #jdbcProperties()},
 * {@link #connectOptions()}): a part never becomes text that a driver parses again, so a %-encoded {@code ?} or
 * {@code &} in the database name or in a value cannot add a driver parameter (pgjdbc's {@code socketFactory} loads a
 * class by name, {@code options} sets server settings).
 *
 * <p>Of the URL's parameters only {@link #DRIVER_PARAMETERS} (and the credentials) are read. {@link #redacted()}, the
 * only form that goes into answers and logs, is built from the checked parts: the password and the value of every
 * parameter whose name holds "password" or "key" are hidden, and so is any part that breaks the rules.
 *
 * <p>A new URL that breaks a rule is refused (400, naming the part and what it may hold). One stored before the rules
 * (a legacy catalogue row) is still read, for answers: its other parameters are shown (redacted) and never given to a
 * driver, an application_name that breaks the rules is left out, and any other part that breaks them makes the pool
 * unusable (the driver methods fail) rather than be given to a driver.
 */
public final class PoolUri {

    public static final int MAX_LENGTH = 255;
    private static final String HIDDEN = "*****";

    /** The parameters a pool's URL may pass to the drivers, besides {@code user} and {@code password}. */
    public static final List<String> DRIVER_PARAMETERS = List.of("sslmode", "application_name");

    private static final List<String> SSL_MODES =
            List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");

    /** Labels of ASCII letters, digits and inner hyphens, joined by dots (an IPv4 address is one too). */
    private static final Pattern HOST_NAME = Pattern.compile(
            "(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*");
    /** An IPv6 literal, without a zone (its {@code %} would be one more thing to decode). */
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");
    /** PostgreSQL's names are at most 63 bytes; these characters need no quoting or escaping anywhere. */
    private static final Pattern DATABASE = Pattern.compile("[A-Za-z0-9_.$-]{1,63}");

    private static final Pattern USER = Pattern.compile("[A-Za-z0-9_.$@+-]{1,63}");
    private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9_.:+-]{1,63}");
    private static final Pattern PARAMETER_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    static final String HOST_RULE =
            "uri host must be a host name (ASCII letters, digits, hyphens and dots) or an IP " + "address.";
    static final String PORT_RULE = "uri port must be from 1 to 65535.";
    static final String DATABASE_RULE =
            "uri database name must be 1 to 63 ASCII letters, digits, underscores, dots, " + "hyphens or dollar signs.";
    static final String USER_RULE =
            "uri user must be 1 to 63 ASCII letters, digits, underscores, dots, hyphens, dollar "
                    + "signs, plus signs or at signs.";
    static final String PASSWORD_RULE = "uri password must not hold control characters.";
    static final String APPLICATION_NAME_RULE = "uri parameter application_name must be 1 to 63 ASCII letters, digits, "
            + "underscores, dots, hyphens, colons or plus signs.";
    static final String SSL_MODE_RULE = "uri parameter sslmode must be one of " + String.join(", ", SSL_MODES) + ".";

    /** A parameter as answers show it: its name and value already checked or hidden. */
    private record Shown(String name, String value) {}

    private final String text;
    private final String host;
    private final int port;
    private final String database;
    private final String user;
    private final String password;
    private final String sslMode;
    private final String applicationName;
    /** Every parameter but the credentials, in the URL's order, as answers and logs show them. */
    private final List<Shown> shown;
    /** Why a stored URL cannot be given to a driver (a rule it breaks), or null. */
    private final String unusable;

    private final boolean hostShown;
    private final boolean databaseShown;
    private final boolean userShown;

    private PoolUri(Reader read) {
        this.text = read.text;
        this.host = read.host;
        this.port = read.port;
        this.database = read.database;
        this.user = read.user;
        this.password = read.password;
        this.sslMode = read.sslMode;
        this.applicationName = read.applicationName;
        this.shown = List.copyOf(read.shown);
        this.unusable = read.unusable;
        this.hostShown = read.hostShown;
        this.databaseShown = read.databaseShown;
        this.userShown = read.userShown;
    }

    /** A new pool's URL, as the operator gives it: a part that breaks a rule, or another parameter, is refused (400). */
    public static PoolUri parse(String text) {
        return new PoolUri(new Reader(text, true));
    }

    /**
     * A URL from the catalogue: read as {@link #parse} reads it, but what breaks a rule (from a pool registered before
     * the rules) is kept from the drivers instead of refused, and hidden in answers.
     */
    public static PoolUri stored(String text) {
        return new PoolUri(new Reader(text, false));
    }

    /** Reads a URL into checked parts: refusing what breaks a rule ({@code strict}) or noting it. */
    private static final class Reader {
        final String text;
        final boolean strict;
        String host;
        int port;
        String database;
        String user;
        String password;
        String sslMode;
        String applicationName;
        final List<Shown> shown = new ArrayList<>();
        String unusable;
        boolean hostShown = true;
        boolean databaseShown = true;
        boolean userShown = true;

        Reader(String text, boolean strict) {
            this.text = text;
            this.strict = strict;
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
            if (!(scheme.equals("postgresql") || scheme.equals("postgres"))
                    || uri.getHost() == null
                    || !path.matches("/[^/]+")
                    || uri.getRawFragment() != null) {
                throw invalid();
            }
            host = uri.getHost();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
                hostShown = IPV6.matcher(host).matches() && host.contains(":");
            } else {
                hostShown = HOST_NAME.matcher(host).matches();
            }
            breaks(!hostShown, HOST_RULE);
            port = uri.getPort() < 0 ? 5432 : uri.getPort();
            breaks(port < 1 || port > 65535, PORT_RULE);
            database = decode(path.substring(1));
            databaseShown = DATABASE.matcher(database).matches();
            breaks(!databaseShown, DATABASE_RULE);
            if (uri.getRawUserInfo() != null) {
                String[] parts = uri.getRawUserInfo().split(":", 2);
                user = decode(parts[0]);
                password = parts.length > 1 ? decode(parts[1]) : null;
            }
            if (uri.getRawQuery() != null) {
                for (String pair : uri.getRawQuery().split("&")) {
                    if (!pair.isEmpty()) {
                        parameter(pair);
                    }
                }
            }
            if (user != null) {
                userShown = USER.matcher(user).matches();
                breaks(!userShown, USER_RULE);
            }
            breaks(password != null && password.chars().anyMatch(c -> c < 0x20 || c == 0x7f), PASSWORD_RULE);
        }

        private void parameter(String pair) {
            String[] kv = pair.split("=", 2);
            String name = decode(kv[0]);
            String value = kv.length > 1 ? decode(kv[1]) : "";
            switch (name) {
                case "password" -> {
                    twice(password != null, name);
                    password = value;
                }
                case "user" -> {
                    twice(user != null, name);
                    user = value;
                }
                case "sslmode" -> {
                    twice(sslMode != null, name);
                    boolean known = SSL_MODES.contains(value);
                    // An unknown mode never worked; leaving it out would connect with less protection than asked.
                    breaks(!known, SSL_MODE_RULE);
                    sslMode = value;
                    shown.add(new Shown(name, known ? value : HIDDEN));
                }
                case "application_name" -> {
                    twice(applicationName != null, name);
                    boolean valid = VALUE.matcher(value).matches();
                    if (strict && !valid) {
                        throw Rejection.invalidRequest(APPLICATION_NAME_RULE);
                    }
                    // Only a label for the server's activity view: a stored one that breaks the rule is left out.
                    applicationName = valid ? value : null;
                    shown.add(new Shown(name, valid ? value : HIDDEN));
                }
                default -> {
                    boolean named = PARAMETER_NAME.matcher(name).matches();
                    if (strict) {
                        throw Rejection.invalidRequest("uri parameter " + (named ? "\"" + name + "\"" : "names")
                                + " is not passed to the database driver; a pool's uri may set only "
                                + String.join(", ", DRIVER_PARAMETERS) + " (and user, password).");
                    }
                    shown.add(new Shown(
                            named ? name : HIDDEN,
                            named && !isSecret(name) && VALUE.matcher(value).matches() ? value : HIDDEN));
                }
            }
        }

        private void twice(boolean given, String name) {
            breaks(given, "uri parameter " + name + " may be given once.");
        }

        /** A broken rule: refused in a new URL; in a stored one, the first makes it unusable. */
        private void breaks(boolean broken, String rule) {
            if (!broken) {
                return;
            }
            if (strict) {
                throw Rejection.invalidRequest(rule);
            }
            if (unusable == null) {
                unusable = rule;
            }
        }
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

    /** The URL for answers and logs: built from the checked parts, the password and secret values hidden. */
    public String redacted() {
        StringBuilder shownText = new StringBuilder("postgresql://");
        if (user != null) {
            shownText.append(userShown ? user.replace("@", "%40") : HIDDEN);
            if (password != null) {
                shownText.append(':').append(HIDDEN);
            }
            shownText.append('@');
        }
        shownText
                .append(hostShown ? urlHost() : HIDDEN)
                .append(':')
                .append(port)
                .append('/')
                .append(databaseShown ? database : HIDDEN);
        String separator = "?";
        for (Shown parameter : shown) {
            shownText
                    .append(separator)
                    .append(parameter.name())
                    .append('=')
                    .append(isSecret(parameter.name()) ? HIDDEN : parameter.value());
            separator = "&";
        }
        return shownText.toString();
    }

    /** A parameter that names a secret: its name holds "password" or "key", in any case. */
    static boolean isSecret(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.contains("password") || lower.contains("key");
    }

    /**
     * The JDBC URL of the same server and database, and nothing else: credentials and parameters are given apart, in
     * {@link #jdbcProperties()}. Fails for a stored URL that breaks a rule.
     */
    public String jdbcUrl() {
        usable();
        return "jdbc:postgresql://" + urlHost() + ":" + port + "/" + database;
    }

    /** What pgjdbc is given besides {@link #jdbcUrl()}: the credentials, sslmode and application name, if any. */
    public Properties jdbcProperties() {
        usable();
        Properties properties = new Properties();
        if (user != null) {
            properties.setProperty("user", user);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        if (sslMode != null) {
            properties.setProperty("sslmode", sslMode);
        }
        if (applicationName != null) {
            properties.setProperty("ApplicationName", applicationName);
        }
        return properties;
    }

    /** What the reactive client is given: each part set as a field, never a URL to parse. */
    public PgConnectOptions connectOptions() {
        usable();
        PgConnectOptions options =
                new PgConnectOptions().setHost(host).setPort(port).setDatabase(database);
        if (user != null) {
            options.setUser(user);
        }
        if (password != null) {
            options.setPassword(password);
        }
        if (sslMode != null) {
            options.setSslMode(SslMode.of(sslMode));
        }
        if (applicationName != null) {
            options.addProperty("application_name", applicationName);
        }
        return options;
    }

    /** The first rule a stored URL breaks, which keeps it from the drivers; empty when it can be given to them. */
    public Optional<String> brokenRule() {
        return Optional.ofNullable(unusable);
    }

    private void usable() {
        if (unusable != null) {
            throw new IllegalStateException("The pool's stored uri is not given to a driver: " + unusable);
        }
    }

    private String urlHost() {
        return host.contains(":") ? "[" + host + "]" : host;
    }

    /** The user name, for tests that migrate a pool's database themselves; a driver is given {@link #jdbcProperties()}. */
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
