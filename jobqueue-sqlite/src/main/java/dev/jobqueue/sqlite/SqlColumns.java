package dev.jobqueue.sqlite;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/** Reads columns the way the statements write them (see {@link NamedStatement}). */
final class SqlColumns {

	private SqlColumns() {
	}

	/**
	 * A time column, stored as epoch milliseconds; {@code null} when the column is NULL.
	 */
	static Instant instant(ResultSet rows, String column) throws SQLException {
		long millis = rows.getLong(column);
		return rows.wasNull() ? null : Instant.ofEpochMilli(millis);
	}

	/** A nullable integer column. */
	static Long nullableLong(ResultSet rows, String column) throws SQLException {
		long value = rows.getLong(column);
		return rows.wasNull() ? null : value;
	}

	/** A nullable integer column. */
	static Integer nullableInt(ResultSet rows, String column) throws SQLException {
		int value = rows.getInt(column);
		return rows.wasNull() ? null : value;
	}

}
