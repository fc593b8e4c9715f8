package io.pigeon.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.rules.Rejection;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** A pool's PostgreSQL URL: what is accepted, what answers and logs show, and what the driver is given. */
class PoolUriTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "postgresql://pigeon:pw@db1:5433/queues | postgresql://pigeon:*****@db1:5433/queues | jdbc:postgresql://db1:5433/queues"
                        + " | pigeon | pw",
                "postgres://db1/queues | postgresql://db1:5432/queues | jdbc:postgresql://db1:5432/queues | | ",
                "postgresql://u@db1/q?sslmode=require&password=p%40ss | postgresql://u:*****@db1:5432/q?sslmode=require"
                        + " | jdbc:postgresql://db1:5432/q | u | p@ss",
                "postgresql://u:a%3Ab@[::1]:6000/q | postgresql://u:*****@[::1]:6000/q | jdbc:postgresql://[::1]:6000/q | u | a:b"
            })
    void readsShowsAndTranslates(String text, String redacted, String jdbc, String user, String password) {
        PoolUri uri = PoolUri.parse(text);
        assertEquals(redacted, uri.redacted());
        assertEquals(redacted, uri.toString());
        assertEquals(jdbc, uri.jdbcUrl());
        assertEquals(user, uri.user());
        assertEquals(password, uri.password());
        assertEquals(text, uri.text());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "",
                "mongodb://localhost:27017",
                "postgresql:///db",
                "postgresql://host",
                "postgresql://host/",
                "postgresql://host/a/b",
                "postgresql://host/db#frag",
                "not a uri",
                "http://host/db"
            })
    void refusesWhatIsNotAPostgresqlUrl(String text) {
        Rejection refused = assertThrows(Rejection.class, () -> PoolUri.parse(text));
        assertEquals(
                "uri must be a PostgreSQL URL of at most 255 characters: postgresql://user:password@host:port/database",
                refused.getMessage());
    }

    @ParameterizedTest
    @ValueSource(ints = {256, 1000})
    void refusesAnOverlongUrl(int length) {
        String text = "postgresql://host/" + "d".repeat(length - 18);
        assertEquals(length, text.length());
        assertThrows(Rejection.class, () -> PoolUri.parse(text));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "postgresql://db1/q?socketFactory=org.springframework.context.support.ClassPathXmlApplicationContext",
                "postgresql://db1/q?sslfactory=x",
                "postgresql://db1/q?loggerFile=/tmp/x",
                "postgresql://db1/q?SSLMODE=require",
                "postgresql://db1/q?sslpassword=x",
                "postgresql://db1/q?options=-c%20search_path%3Devil",
                "postgresql://db1/q?sslmode=require&sslkey=/etc/key"
            })
    void refusesParametersOutsideTheDriverList(String text) {
        Rejection refused = assertThrows(Rejection.class, () -> PoolUri.parse(text));
        assertTrue(refused.getMessage().contains("may set only sslmode, application_name"), refused.getMessage());
    }

    @Test
    void refusesAnUnknownSslMode() {
        Rejection refused = assertThrows(Rejection.class, () -> PoolUri.parse("postgresql://db1/q?sslmode=maybe"));
        assertTrue(
                refused.getMessage().startsWith("uri parameter sslmode must be one of disable,"), refused.getMessage());
    }

    /** A URL stored before the list: its other parameters are shown (secrets hidden), and no driver is given them. */
    @Test
    void aStoredUrlKeepsItsOtherParametersFromTheDriverAndHidesSecrets() {
        PoolUri uri = PoolUri.stored("postgresql://u:pw@db1/q?sslmode=require&sslpassword=s3cret&api_KEY=k2&"
                + "Password=p3&socketFactory=org.example.Evil&application_name=pigeon");
        assertEquals(
                "postgresql://u:*****@db1:5432/q?sslmode=require&sslpassword=*****&api_KEY=*****&Password=*****"
                        + "&socketFactory=org.example.Evil&application_name=pigeon",
                uri.redacted());
        assertEquals("jdbc:postgresql://db1:5432/q", uri.jdbcUrl());
        Properties expected = new Properties();
        expected.putAll(Map.of("user", "u", "password", "pw", "sslmode", "require", "ApplicationName", "pigeon"));
        assertEquals(expected, uri.jdbcProperties());
        assertEquals(Map.of("application_name", "pigeon"), driven(uri.connectOptions()));
        assertEquals(SslMode.REQUIRE, uri.connectOptions().getSslMode());
        for (String secret : new String[] {"pw", "s3cret", "k2", "p3"}) {
            assertFalse(uri.redacted().contains("=" + secret), uri.redacted());
            assertFalse(uri.toString().contains(":" + secret + "@"), uri.toString());
        }
    }

    /**
     * The outside attack on issue 25 item 11: %-encoded separators in the database name or in a parameter's value
     * became real ones when the decoded text was pasted into the driver's URL (a class named by the caller, server
     * settings, a password shown in clear). Each is refused, naming the part, and the refusal shows no secret.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "postgresql://u:pw@127.0.0.1:15432/db%3FsocketFactory%3Djava.lang.Object | uri database name",
                "postgresql://u:pw@127.0.0.1:15432/db%3Foptions%3D-csearch_path%253Devil | uri database name",
                "postgresql://u@127.0.0.1:15432/db%3Fpassword%3DHunter2 | uri database name",
                "postgresql://u@127.0.0.1:15432/db%26sslpassword%3DHunter2 | uri database name",
                "postgresql://u@127.0.0.1:15432/db%2Fx | uri database name",
                "postgresql://u@127.0.0.1:15432/db%3Bx | uri database name",
                "postgresql://u@127.0.0.1:15432/db%25 | uri database name",
                "postgresql://u@127.0.0.1:15432/db%20x | uri database name",
                "postgresql://u@127.0.0.1:15432/db%0Ax | uri database name",
                "postgresql://u@127.0.0.1:15432/db%00 | uri database name",
                "postgresql://u@127.0.0.1:15432/db?application_name=x%26options%3D-cwork_mem%253D1 | uri parameter application_name",
                "postgresql://u@127.0.0.1:15432/db?application_name=a%26sslpassword%3DHunter3 | uri parameter application_name",
                "postgresql://u@127.0.0.1:15432/db?application_name=a%3Bb | uri parameter application_name",
                "postgresql://u@127.0.0.1:15432/db?application_name=a%20b | uri parameter application_name",
                "postgresql://u@127.0.0.1:15432/db?sslmode=require%26sslpassword%3DHunter3 | uri parameter sslmode",
                "postgresql://u%3FsocketFactory%3DHunter4@127.0.0.1:15432/db | uri user",
                "postgresql://127.0.0.1:15432/db?user=u%26password%3DHunter5 | uri user",
                "postgresql://u@127.0.0.1:0/db | uri port",
                "postgresql://u@127.0.0.1:65536/db | uri port"
            })
    void refusesEncodedSeparatorsInEveryPartGivenToADriver(String text, String field) {
        Rejection refused = assertThrows(Rejection.class, () -> PoolUri.parse(text));
        assertTrue(refused.getMessage().startsWith(field), refused.getMessage());
        assertFalse(refused.getMessage().contains("Hunter"), refused.getMessage());
    }

    /**
     * The same addresses stored before these rules (a legacy row): shown without their secrets, and never given to a
     * driver (a part that breaks the rules makes the pool unusable; a bad application_name is left out).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "postgresql://u:pw@127.0.0.1:15432/db%3FsocketFactory%3Djava.lang.Object",
                "postgresql://u:pw@127.0.0.1:15432/db%3Foptions%3D-csearch_path%253Devil",
                "postgresql://u@127.0.0.1:15432/db%3Fpassword%3DHunter2",
                "postgresql://u%3FsocketFactory%3DHunter4@127.0.0.1:15432/db"
            })
    void aStoredUrlThatBreaksTheRulesIsNeverGivenToADriver(String text) {
        PoolUri uri = PoolUri.stored(text);
        for (String hidden : new String[] {"Hunter", "socketFactory", "options", "Object", "evil", "?password"}) {
            assertFalse(uri.redacted().contains(hidden), uri.redacted());
        }
        assertThrows(IllegalStateException.class, uri::jdbcUrl);
        assertThrows(IllegalStateException.class, uri::jdbcProperties);
        assertThrows(IllegalStateException.class, uri::connectOptions);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "postgresql://u@127.0.0.1:15432/db?application_name=x%26options%3D-cwork_mem%253D1",
                "postgresql://u@127.0.0.1:15432/db?application_name=a%26sslpassword%3DHunter3"
            })
    void aStoredApplicationNameThatBreaksTheRulesIsLeftOut(String text) {
        PoolUri uri = PoolUri.stored(text);
        for (String hidden : new String[] {"Hunter", "options", "work_mem", "sslpassword"}) {
            assertFalse(uri.redacted().contains(hidden), uri.redacted());
        }
        assertEquals("jdbc:postgresql://127.0.0.1:15432/db", uri.jdbcUrl());
        Properties expected = new Properties();
        expected.setProperty("user", "u");
        assertEquals(expected, uri.jdbcProperties());
        assertEquals("db", uri.connectOptions().getDatabase());
        assertEquals(Map.of(), driven(uri.connectOptions()));
        assertEquals("postgresql://u@127.0.0.1:15432/db?application_name=*****", uri.redacted());
    }

    /**
     * What the drivers are given, for a URL with every part: pgjdbc a URL of host, port and database only and the rest
     * as properties; the reactive client each part as a field. No driver parses a part as text again.
     */
    @Test
    void theDriversAreGivenOnlyTheCheckedPartsAsValues() {
        PoolUri uri = PoolUri.parse("postgres://pigeon%40eu:p%26w%3Fd=1@[::1]:6000/queues_1?sslmode=verify-full"
                + "&application_name=pigeon-eu.1");
        assertEquals("jdbc:postgresql://[::1]:6000/queues_1", uri.jdbcUrl());
        Properties expected = new Properties();
        expected.putAll(Map.of(
                "user",
                "pigeon@eu",
                "password",
                "p&w?d=1",
                "sslmode",
                "verify-full",
                "ApplicationName",
                "pigeon-eu.1"));
        assertEquals(expected, uri.jdbcProperties());
        PgConnectOptions options = uri.connectOptions();
        assertEquals("::1", options.getHost());
        assertEquals(6000, options.getPort());
        assertEquals("queues_1", options.getDatabase());
        assertEquals("pigeon@eu", options.getUser());
        assertEquals("p&w?d=1", options.getPassword());
        assertEquals(SslMode.VERIFY_FULL, options.getSslMode());
        assertEquals(Map.of("application_name", "pigeon-eu.1"), driven(options));
        assertEquals(
                "postgresql://pigeon%40eu:*****@[::1]:6000/queues_1?sslmode=verify-full&application_name=pigeon-eu.1",
                uri.redacted());

        PoolUri bare = PoolUri.parse("postgresql://db1/q");
        assertEquals(new Properties(), bare.jdbcProperties());
        assertEquals(SslMode.DISABLE, bare.connectOptions().getSslMode());
        assertEquals(Map.of(), driven(bare.connectOptions()));
    }

    /** The connection properties that the URL set: those that are not the reactive client's defaults. */
    private static Map<String, String> driven(PgConnectOptions options) {
        Map<String, String> set = new HashMap<>(options.getProperties());
        set.entrySet().removeIf(e -> e.getValue().equals(PgConnectOptions.DEFAULT_PROPERTIES.get(e.getKey())));
        return set;
    }
}
