package io.pigeon.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pigeon.rules.Rejection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** A pool's PostgreSQL URL: what is accepted, what answers and logs show, and what the driver is given. */
class PoolUriTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "postgresql://pigeon:pw@db1:5433/queues | postgresql://pigeon:*****@db1:5433/queues | jdbc:postgresql://db1:5433/queues"
                    + " | pigeon | pw",
            "postgres://db1/queues | postgresql://db1:5432/queues | jdbc:postgresql://db1:5432/queues | | ",
            "postgresql://u@db1/q?sslmode=require&password=p%40ss | postgresql://u:*****@db1:5432/q?sslmode=require"
                    + " | jdbc:postgresql://db1:5432/q?sslmode=require | u | p@ss",
            "postgresql://u:a%3Ab@[::1]:6000/q | postgresql://u:*****@[::1]:6000/q | jdbc:postgresql://[::1]:6000/q | u | a:b"})
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
    @ValueSource(strings = {"", "mongodb://localhost:27017", "postgresql:///db", "postgresql://host", "postgresql://host/",
            "postgresql://host/a/b", "postgresql://host/db#frag", "not a uri", "http://host/db"})
    void refusesWhatIsNotAPostgresqlUrl(String text) {
        Rejection refused = assertThrows(Rejection.class, () -> PoolUri.parse(text));
        assertEquals("uri must be a PostgreSQL URL of at most 255 characters: postgresql://user:password@host:port/database",
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
    @ValueSource(strings = {"postgresql://db1/q?socketFactory=org.springframework.context.support.ClassPathXmlApplicationContext",
            "postgresql://db1/q?sslfactory=x", "postgresql://db1/q?loggerFile=/tmp/x", "postgresql://db1/q?SSLMODE=require",
            "postgresql://db1/q?sslpassword=x", "postgresql://db1/q?options=-c%20search_path%3Devil",
            "postgresql://db1/q?sslmode=require&sslkey=/etc/key"})
    void refusesParametersOutsideTheDriverList(String text) {
        Rejection refused = assertThrows(Rejection.class, () -> PoolUri.parse(text));
        assertTrue(refused.getMessage().contains("may set only sslmode, application_name"), refused.getMessage());
    }

    @Test
    void refusesAnUnknownSslMode() {
        Rejection refused = assertThrows(Rejection.class, () -> PoolUri.parse("postgresql://db1/q?sslmode=maybe"));
        assertTrue(refused.getMessage().startsWith("uri parameter sslmode must be one of disable,"), refused.getMessage());
    }

    /** A URL stored before the list: its other parameters are shown (secrets hidden), and no driver is given them. */
    @Test
    void aStoredUrlKeepsItsOtherParametersFromTheDriverAndHidesSecrets() {
        PoolUri uri = PoolUri.stored("postgresql://u:pw@db1/q?sslmode=require&sslpassword=s3cret&api_KEY=k2&"
                + "Password=p3&socketFactory=org.example.Evil&application_name=pigeon");
        assertEquals("postgresql://u:*****@db1:5432/q?sslmode=require&sslpassword=*****&api_KEY=*****&Password=*****"
                + "&socketFactory=org.example.Evil&application_name=pigeon", uri.redacted());
        assertEquals("jdbc:postgresql://db1:5432/q?sslmode=require&application_name=pigeon", uri.jdbcUrl());
        for (String secret : new String[] {"pw", "s3cret", "k2", "p3"}) {
            assertFalse(uri.redacted().contains("=" + secret), uri.redacted());
            assertFalse(uri.toString().contains(":" + secret + "@"), uri.toString());
        }
    }
}
