package dev.jobqueue.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A database of its own for each test on a server store's test server (created before,
 * dropped after) and a pool on it, with the raw statements tests of migrations and of the
 * schema write by hand. A store's test sources say how a database is created, opened and
 * dropped there, and add the migrations and stores.
 *
 * @param <P> the pool
 */
public abstract class DatabasePerTest<P extends DataSource & AutoCloseable>
		implements BeforeEachCallback, AfterEachCallback {

	private String name;

	private P dataSource;

	/** Creates an empty database and answers its name. */
	protected abstract String createDatabase();

	/** A pool on the database {@code name}. */
	protected abstract P open(String name);

	protected abstract void dropDatabase(String name);

	@Override
	public void beforeEach(ExtensionContext context) {
		this.name = createDatabase();
		this.dataSource = open(this.name);
	}

	@Override
	public void afterEach(ExtensionContext context) throws Exception {
		if (this.dataSource != null) {
			this.dataSource.close();
		}
		if (this.name != null) {
			dropDatabase(this.name);
		}
	}

	public String name() {
		return this.name;
	}

	public P dataSource() {
		return this.dataSource;
	}

	public void execute(String sql) {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

	/** The first column of the first row, as text. */
	public String text(String sql) {
		try (Connection connection = this.dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(sql)) {
			rows.next();
			return rows.getString(1);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(sql, ex);
		}
	}

	public long count(String sql) {
		return Long.parseLong(text(sql));
	}

}
