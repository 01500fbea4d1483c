package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import dev.jobqueue.jdbc.EpochMillisDialect;
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
public final class SqliteDialect implements EpochMillisDialect {

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
			case "for_update", "for_update_skip_locked", "for_share" -> "";
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
