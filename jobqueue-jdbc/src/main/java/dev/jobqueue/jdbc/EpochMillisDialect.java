package dev.jobqueue.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * A {@link Dialect} for databases that keep time as a {@code BIGINT} of epoch
 * milliseconds (no time zone of a server, session or driver can change it), take lists as
 * one JSON array parameter read by the database's JSON table function, and keep a
 * worker's types as a comma-separated list: SQLite and MySQL.
 */
public interface EpochMillisDialect extends Dialect {

	@Override
	default void setInstant(PreparedStatement statement, int position, Instant value) throws SQLException {
		if (value != null) {
			statement.setLong(position, value.toEpochMilli());
		}
		else {
			statement.setNull(position, Types.BIGINT);
		}
	}

	@Override
	default Instant instant(ResultSet rows, int column) throws SQLException {
		long millis = rows.getLong(column);
		return rows.wasNull() ? null : Instant.ofEpochMilli(millis);
	}

	@Override
	default Instant instant(ResultSet rows, String column) throws SQLException {
		long millis = rows.getLong(column);
		return rows.wasNull() ? null : Instant.ofEpochMilli(millis);
	}

	@Override
	default void setIds(PreparedStatement statement, int position, Collection<Long> ids) throws SQLException {
		statement.setString(position, JsonArrays.of(ids));
	}

	@Override
	default void setTexts(PreparedStatement statement, int position, Collection<String> texts) throws SQLException {
		statement.setString(position, JsonArrays.of(texts));
	}

	/** A comma-separated list, as the workers table keeps a worker's types. */
	@Override
	default void setTextList(PreparedStatement statement, int position, Collection<String> texts) throws SQLException {
		statement.setString(position, String.join(",", texts));
	}

	/** A comma-separated list, as the workers table keeps a worker's types. */
	@Override
	default List<String> texts(ResultSet rows, int column) throws SQLException {
		String list = rows.getString(column);
		return (list == null || list.isEmpty()) ? List.of() : Arrays.asList(list.split(","));
	}

}
