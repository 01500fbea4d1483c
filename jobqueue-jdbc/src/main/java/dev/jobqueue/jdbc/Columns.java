package dev.jobqueue.jdbc;

import java.sql.ResultSet;
import java.sql.SQLException;

/** Reads nullable number columns, which JDBC reads as 0. */
public final class Columns {

	private Columns() {
	}

	public static Long nullableLong(ResultSet rows, String column) throws SQLException {
		long value = rows.getLong(column);
		return rows.wasNull() ? null : value;
	}

	public static Integer nullableInt(ResultSet rows, String column) throws SQLException {
		int value = rows.getInt(column);
		return rows.wasNull() ? null : value;
	}

	public static Long nullableLong(ResultSet rows, int column) throws SQLException {
		long value = rows.getLong(column);
		return rows.wasNull() ? null : value;
	}

	public static Integer nullableInt(ResultSet rows, int column) throws SQLException {
		int value = rows.getInt(column);
		return rows.wasNull() ? null : value;
	}

}
