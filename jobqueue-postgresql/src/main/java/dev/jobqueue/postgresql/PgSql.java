package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A statement whose parameters have names ({@code :job_id}), parsed once into the
 * {@code ?} text JDBC prepares and the positions of each name. Casts
 * ({@code ::bigint[]}), quoted text and comments are copied as they are. Lists are bound
 * as one PostgreSQL array ({@code type = ANY(:types)}), so a statement's text never
 * depends on how many values it gets and the server plans it once.
 */
final class PgSql {

	private final String text;

	private final Map<String, int[]> positions;

	private PgSql(String text, Map<String, int[]> positions) {
		this.text = text;
		this.positions = positions;
	}

	static PgSql parse(String sql) {
		StringBuilder text = new StringBuilder(sql.length());
		Map<String, List<Integer>> found = new LinkedHashMap<>();
		int position = 0;
		int i = 0;
		while (i < sql.length()) {
			char c = sql.charAt(i);
			int end = i + 1;
			if (c == '\'' || c == '"') {
				int close = sql.indexOf(c, i + 1);
				end = (close < 0) ? sql.length() : close + 1;
			}
			else if (c == '-' && sql.startsWith("--", i)) {
				int close = sql.indexOf('\n', i);
				end = (close < 0) ? sql.length() : close + 1;
			}
			else if (c == ':' && sql.startsWith("::", i)) {
				end = i + 2;
			}
			else if (c == ':' && i + 1 < sql.length() && isNameStart(sql.charAt(i + 1))) {
				end = i + 2;
				while (end < sql.length() && isNamePart(sql.charAt(end))) {
					end++;
				}
				found.computeIfAbsent(sql.substring(i + 1, end), (key) -> new ArrayList<>()).add(++position);
				text.append('?');
				i = end;
				continue;
			}
			text.append(sql, i, end);
			i = end;
		}
		Map<String, int[]> positions = new HashMap<>();
		found.forEach((name, at) -> positions.put(name, at.stream().mapToInt(Integer::intValue).toArray()));
		return new PgSql(text.toString(), Map.copyOf(positions));
	}

	private static boolean isNameStart(char c) {
		return Character.isLetter(c) || c == '_';
	}

	private static boolean isNamePart(char c) {
		return Character.isLetterOrDigit(c) || c == '_';
	}

	String text() {
		return this.text;
	}

	Statement prepare(Connection connection) throws SQLException {
		return new Statement(this, connection.prepareStatement(this.text));
	}

	@Override
	public String toString() {
		return this.text;
	}

	/**
	 * Instants are stored with millisecond precision, as on SQLite, so a value reads back
	 * as it was given on both stores (timestamptz would keep microseconds).
	 */
	static OffsetDateTime timestamp(Instant instant) {
		return (instant != null) ? instant.truncatedTo(ChronoUnit.MILLIS).atOffset(ZoneOffset.UTC) : null;
	}

	static Instant instant(ResultSet rows, String column) throws SQLException {
		OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	static Instant instant(ResultSet rows, int column) throws SQLException {
		OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	/** A prepared {@link PgSql}, bound by name. */
	static final class Statement implements AutoCloseable {

		private final PgSql sql;

		private final PreparedStatement statement;

		private Statement(PgSql sql, PreparedStatement statement) {
			this.sql = sql;
			this.statement = statement;
		}

		private int[] at(String name) {
			int[] at = this.sql.positions.get(name);
			if (at == null) {
				throw new IllegalArgumentException("No parameter :" + name + " in " + this.sql.text);
			}
			return at;
		}

		Statement set(String name, String value) throws SQLException {
			for (int i : at(name)) {
				this.statement.setString(i, value);
			}
			return this;
		}

		Statement set(String name, long value) throws SQLException {
			for (int i : at(name)) {
				this.statement.setLong(i, value);
			}
			return this;
		}

		Statement set(String name, int value) throws SQLException {
			for (int i : at(name)) {
				this.statement.setInt(i, value);
			}
			return this;
		}

		Statement set(String name, boolean value) throws SQLException {
			for (int i : at(name)) {
				this.statement.setBoolean(i, value);
			}
			return this;
		}

		Statement set(String name, Instant value) throws SQLException {
			for (int i : at(name)) {
				this.statement.setObject(i, timestamp(value), Types.TIMESTAMP_WITH_TIMEZONE);
			}
			return this;
		}

		/** Binds a {@code text[]}, {@code bigint[]} or {@code integer[]} parameter. */
		Statement setArray(String name, String elementType, Object[] values) throws SQLException {
			java.sql.Array array = this.statement.getConnection().createArrayOf(elementType, values);
			for (int i : at(name)) {
				this.statement.setArray(i, array);
			}
			return this;
		}

		Statement setTexts(String name, java.util.Collection<String> values) throws SQLException {
			return setArray(name, "text", values.toArray(new String[0]));
		}

		void addBatch() throws SQLException {
			this.statement.addBatch();
		}

		int[] executeBatch() throws SQLException {
			return this.statement.executeBatch();
		}

		int executeUpdate() throws SQLException {
			return this.statement.executeUpdate();
		}

		ResultSet executeQuery() throws SQLException {
			return this.statement.executeQuery();
		}

		@Override
		public void close() throws SQLException {
			this.statement.close();
		}

	}

}
