package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

import dev.jobqueue.jdbc.JsonArrays;
import dev.jobqueue.jdbc.Dialect;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.StatementCache;
import dev.jobqueue.jdbc.Tables;

/**
 * SQLite's way with the shared statements: time as epoch milliseconds in an integer
 * column, lists as a JSON array read with {@code json_each}, no row locks (a write
 * transaction holds the whole database), and the queue's own connections keep their
 * prepared statements ({@link StatementCache}).
 */
public final class SqliteDialect implements Dialect {

	public static final SqliteDialect INSTANCE = new SqliteDialect();

	private SqliteDialect() {
	}

	/** The queue's tables under {@code prefix} ({@code ""} or {@code null} for none). */
	public static Tables tables(String prefix) {
		return new Tables(null, prefix, INSTANCE);
	}

	@Override
	public String name() {
		return "SQLite";
	}

	@Override
	public void setInstant(PreparedStatement statement, int position, Instant value) throws SQLException {
		if (value != null) {
			statement.setLong(position, value.toEpochMilli());
		}
		else {
			statement.setNull(position, Types.BIGINT);
		}
	}

	@Override
	public Instant instant(ResultSet rows, int column) throws SQLException {
		long millis = rows.getLong(column);
		return rows.wasNull() ? null : Instant.ofEpochMilli(millis);
	}

	@Override
	public Instant instant(ResultSet rows, String column) throws SQLException {
		long millis = rows.getLong(column);
		return rows.wasNull() ? null : Instant.ofEpochMilli(millis);
	}

	@Override
	public void setIds(PreparedStatement statement, int position, Collection<Long> ids) throws SQLException {
		statement.setString(position, JsonArrays.of(ids));
	}

	@Override
	public void setTexts(PreparedStatement statement, int position, Collection<String> texts) throws SQLException {
		statement.setString(position, JsonArrays.of(texts));
	}

	/**
	 * SQLite's planner may take a worse index on statistics it lacks; the insights name
	 * theirs.
	 */
	@Override
	public String indexedBy(String index) {
		return "INDEXED BY {p}" + index;
	}

	/** A worker's types are a comma-separated list. */
	@Override
	public String textListContains(String list, String value) {
		return "instr(',' || " + list + " || ',', ',' || " + value + " || ',') > 0";
	}

	@Override
	public List<String> texts(ResultSet rows, int column) throws SQLException {
		String list = rows.getString(column);
		return (list == null || list.isEmpty()) ? List.of() : Arrays.asList(list.split(","));
	}

	/** Instants are epoch milliseconds already. */
	@Override
	public String timeSlot(String column, String slot) {
		return column + " / " + slot;
	}

	/** SQLite reports every constraint failure with one primary code. */
	@Override
	public boolean isUniqueViolation(SQLException ex) {
		return SqliteErrors.primaryCode(ex) == SqliteErrors.SQLITE_CONSTRAINT;
	}

	@Override
	public String fragment(String name, String parameter) {
		return switch (name) {
			case "in_ids", "in_texts" -> "IN (SELECT value FROM json_each(" + parameter + "))";
			case "not_in_texts" -> "NOT IN (SELECT value FROM json_each(" + parameter + "))";
			case "for_update", "for_update_skip_locked" -> "";
			default -> null;
		};
	}

	/** On the queue's own connections, statements are kept across transactions. */
	@Override
	public SqlStatement prepare(Connection connection, Sql sql) throws SQLException {
		StatementCache cache = SqliteStatements.CACHES.of(connection);
		if (cache != null) {
			PreparedStatement cached = cache.take(sql);
			if (cached != null) {
				return new SqlStatement(sql, cached, cache::release);
			}
		}
		return new SqlStatement(sql, connection.prepareStatement(sql.text()), SqlStatement.Release.CLOSE);
	}

}
