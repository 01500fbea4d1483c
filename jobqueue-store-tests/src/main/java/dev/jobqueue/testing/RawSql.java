package dev.jobqueue.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

/**
 * The raw SQL a {@link StoreFixture} runs for its tests, each statement on a connection
 * of its own with positional arguments: {@link StoreFixture#column} and
 * {@link StoreFixture#execute} on a pool.
 */
public final class RawSql {

	private RawSql() {
	}

	/** The first column of each row of a query. */
	public static List<Object> column(DataSource dataSource, String sql, Object... args) {
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = prepare(connection, sql, args)) {
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

	public static void execute(DataSource dataSource, String sql, Object... args) {
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = prepare(connection, sql, args)) {
			statement.execute();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static PreparedStatement prepare(Connection connection, String sql, Object... args) throws SQLException {
		PreparedStatement statement = connection.prepareStatement(sql);
		try {
			for (int i = 0; i < args.length; i++) {
				statement.setObject(i + 1, args[i]);
			}
			return statement;
		}
		catch (SQLException ex) {
			statement.close();
			throw ex;
		}
	}

}
