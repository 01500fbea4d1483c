package dev.jobqueue.postgresql;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Collection;

import dev.jobqueue.jdbc.Dialect;
import dev.jobqueue.jdbc.SqlErrors;
import dev.jobqueue.jdbc.Tables;

/**
 * PostgreSQL's way with the shared statements: time as {@code timestamptz} kept to the
 * millisecond, lists as one array parameter ({@code = ANY(:ids)}, so a statement's text
 * never depends on how many values it gets and the server plans it once), and row locks
 * with {@code FOR UPDATE}. Unquoted names fold to lower case.
 */
public final class PostgresDialect implements Dialect {

	public static final PostgresDialect INSTANCE = new PostgresDialect();

	/** Where the queue's tables are when no schema is configured. */
	public static final String DEFAULT_SCHEMA = "public";

	private PostgresDialect() {
	}

	/**
	 * The queue's tables in {@code schema} ({@code null} or blank: {@code public}) under
	 * {@code prefix}.
	 */
	public static Tables tables(String schema, String prefix) {
		return new Tables((schema != null && !schema.isBlank()) ? schema : DEFAULT_SCHEMA, prefix, INSTANCE);
	}

	@Override
	public String name() {
		return "PostgreSQL";
	}

	@Override
	public boolean foldsNamesToLowerCase() {
		return true;
	}

	/**
	 * Instants are kept to the millisecond, as on SQLite, so a value reads back as it was
	 * given on every store (timestamptz would keep microseconds).
	 */
	static OffsetDateTime timestamp(Instant instant) {
		return (instant != null) ? instant.truncatedTo(ChronoUnit.MILLIS).atOffset(ZoneOffset.UTC) : null;
	}

	@Override
	public void setInstant(PreparedStatement statement, int position, Instant value) throws SQLException {
		statement.setObject(position, timestamp(value), Types.TIMESTAMP_WITH_TIMEZONE);
	}

	@Override
	public Instant instant(ResultSet rows, int column) throws SQLException {
		OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	@Override
	public Instant instant(ResultSet rows, String column) throws SQLException {
		OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	@Override
	public void setIds(PreparedStatement statement, int position, Collection<Long> ids) throws SQLException {
		statement.setArray(position, statement.getConnection().createArrayOf("bigint", ids.toArray()));
	}

	@Override
	public void setTexts(PreparedStatement statement, int position, Collection<String> texts) throws SQLException {
		statement.setArray(position, statement.getConnection().createArrayOf("text", texts.toArray()));
	}

	@Override
	public boolean isUniqueViolation(SQLException ex) {
		return SqlErrors.state(ex).equals(PostgresErrors.UNIQUE_VIOLATION);
	}

	/** A {@code text[]}, as the workers table keeps a worker's types. */
	@Override
	public String textList(String parameter) {
		return parameter + "::text[]";
	}

	@Override
	public String fragment(String name, String parameter) {
		return switch (name) {
			case "in_ids", "in_texts" -> "= ANY(" + parameter + ")";
			case "not_in_texts" -> "<> ALL(" + parameter + ")";
			case "for_update" -> "FOR UPDATE";
			case "for_update_skip_locked" -> "FOR UPDATE SKIP LOCKED";
			case "for_share" -> "FOR SHARE";
			default -> null;
		};
	}

}
