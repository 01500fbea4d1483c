package dev.jobqueue.testing;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;

import dev.jobqueue.sqlite.SqliteDataSources;
import dev.jobqueue.sqlite.SqliteDatabase;
import dev.jobqueue.sqlite.SqliteJobAdminStore;
import dev.jobqueue.sqlite.SqliteJobStore;
import dev.jobqueue.sqlite.SqliteSchema;
import dev.jobqueue.sqlite.TableNames;

/** A real, migrated SQLite file for a test, with the store on top. */
public final class TestDatabase implements AutoCloseable {

	private final Path file;

	private final HikariDataSource dataSource;

	private final SqliteDatabase database;

	private final SqliteJobStore store;

	private final SqliteJobAdminStore admin;

	private TestDatabase(Path file, String prefix) {
		this.file = file;
		String url = "jdbc:sqlite:" + file;
		this.dataSource = SqliteDataSources.create(url, Duration.ofSeconds(5), "NORMAL", 4);
		TableNames tables = new TableNames(prefix);
		new SqliteSchema(this.dataSource, tables).initialize();
		this.database = new SqliteDatabase(this.dataSource, file.toString(), Duration.ofSeconds(30));
		this.store = new SqliteJobStore(this.database, tables);
		this.admin = new SqliteJobAdminStore(this.database, tables);
	}

	public static TestDatabase create(Path directory) {
		return new TestDatabase(directory.resolve("queue.db"), "");
	}

	public static TestDatabase create(Path file, String prefix) {
		return new TestDatabase(file, prefix);
	}

	public Path file() {
		return this.file;
	}

	public String url() {
		return "jdbc:sqlite:" + this.file;
	}

	public HikariDataSource dataSource() {
		return this.dataSource;
	}

	public SqliteDatabase database() {
		return this.database;
	}

	public SqliteJobStore store() {
		return this.store;
	}

	public SqliteJobAdminStore admin() {
		return this.admin;
	}

	/** The first column of each row of a query. */
	public List<Object> column(String sql, Object... args) {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < args.length; i++) {
				statement.setObject(i + 1, args[i]);
			}
			List<Object> values = new ArrayList<>();
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					values.add(rows.getObject(1));
				}
			}
			return values;
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	public long count(String sql, Object... args) {
		return ((Number) column(sql, args).get(0)).longValue();
	}

	public void execute(String sql, Object... args) {
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < args.length; i++) {
				statement.setObject(i + 1, args[i]);
			}
			statement.execute();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		this.dataSource.close();
	}

}
