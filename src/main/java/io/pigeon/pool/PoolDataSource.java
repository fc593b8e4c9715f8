package io.pigeon.pool;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.postgresql.Driver;

/**
 * Connections to a pool's database for its migration, made by pgjdbc from {@link PoolUri#jdbcUrl()} (host, port and
 * database only) and properties: the checked parts of the pool's address and Pigeon's own timeouts. Nothing else
 * reaches the driver, unlike a data source built from a URL with parameters.
 */
final class PoolDataSource implements DataSource {

    private final Driver driver = new Driver();
    private final String url;
    private final Properties properties;

    PoolDataSource(PoolUri uri, int connectTimeoutSeconds, long socketTimeoutSeconds) {
        this.url = uri.jdbcUrl();
        this.properties = uri.jdbcProperties();
        properties.setProperty("connectTimeout", Integer.toString(connectTimeoutSeconds));
        properties.setProperty("socketTimeout", Long.toString(socketTimeoutSeconds));
    }

    @Override
    public Connection getConnection() throws SQLException {
        Properties copy = new Properties();
        copy.putAll(properties);
        return driver.connect(url, copy);
    }

    /** Only the pool's own credentials are used. */
    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("A pool's database is reached with its own credentials only");
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("Not a wrapper of " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
