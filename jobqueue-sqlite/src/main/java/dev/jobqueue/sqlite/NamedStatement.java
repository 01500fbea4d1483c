package dev.jobqueue.sqlite;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.Collection;
import java.util.Iterator;

/**
 * A prepared {@link NamedSql}, bound by name. Instants are stored as epoch milliseconds,
 * booleans as 0 and 1, {@code null} as SQL NULL. Every name must be bound before each
 * execution or batch entry, so a forgotten parameter fails at once instead of reusing the
 * previous row's value.
 */
final class NamedStatement implements AutoCloseable {

	private final NamedSql sql;

	private final PreparedStatement statement;

	private final long allNames;

	/** One bit per name not bound since the last execution or batch entry. */
	private long unbound;

	/** Where the statement goes back on close; {@code null} to close it. */
	private final StatementCache cache;

	/** The rows of the last query, closed before a cached statement goes back. */
	private ResultSet rows;

	NamedStatement(NamedSql sql, PreparedStatement statement, StatementCache cache) {
		this.sql = sql;
		this.statement = statement;
		this.cache = cache;
		this.allNames = (sql.parameterCount() == Long.SIZE) ? -1L : (1L << sql.parameterCount()) - 1;
		this.unbound = this.allNames;
	}

	NamedStatement bind(String name, String value) throws SQLException {
		for (int position : positions(name)) {
			if (value != null) {
				this.statement.setString(position, value);
			}
			else {
				this.statement.setNull(position, Types.VARCHAR);
			}
		}
		return this;
	}

	NamedStatement bind(String name, long value) throws SQLException {
		for (int position : positions(name)) {
			this.statement.setLong(position, value);
		}
		return this;
	}

	/** A nullable number. */
	NamedStatement bind(String name, Long value) throws SQLException {
		if (value == null) {
			for (int position : positions(name)) {
				this.statement.setNull(position, Types.BIGINT);
			}
			return this;
		}
		return bind(name, value.longValue());
	}

	/** As epoch milliseconds, the way every time column is stored. */
	NamedStatement bind(String name, Instant value) throws SQLException {
		return bind(name, (value != null) ? Long.valueOf(value.toEpochMilli()) : null);
	}

	NamedStatement bind(String name, boolean value) throws SQLException {
		return bind(name, value ? 1L : 0L);
	}

	/**
	 * As a JSON array for {@code json_each(:name)}: numbers bare, anything else as a
	 * string.
	 */
	NamedStatement bindJsonArray(String name, Collection<?> values) throws SQLException {
		return bind(name, JsonArrays.of(values));
	}

	/**
	 * The values of a list parameter ({@link NamedSql#parse(String, java.util.Map)}), in
	 * order.
	 */
	NamedStatement bindEach(String name, Collection<String> values) throws SQLException {
		int[] positions = positions(name);
		if (positions.length != values.size()) {
			throw new IllegalArgumentException("List parameter :" + name + " was parsed for " + positions.length
					+ " values, not " + values.size());
		}
		Iterator<String> value = values.iterator();
		for (int position : positions) {
			this.statement.setString(position, value.next());
		}
		return this;
	}

	void addBatch() throws SQLException {
		requireAllBound();
		this.statement.addBatch();
	}

	int[] executeBatch() throws SQLException {
		return this.statement.executeBatch();
	}

	int executeUpdate() throws SQLException {
		requireAllBound();
		return this.statement.executeUpdate();
	}

	/** The caller closes the rows (or this statement, which closes them). */
	ResultSet executeQuery() throws SQLException {
		requireAllBound();
		this.rows = this.statement.executeQuery();
		return this.rows;
	}

	/**
	 * @return the first column of the first row, or {@code null} when there is no row
	 */
	String queryString() throws SQLException {
		try (ResultSet rows = executeQuery()) {
			return rows.next() ? rows.getString(1) : null;
		}
	}

	/**
	 * @return the first column of the first row, or 0 when there is no row
	 */
	long queryLong() throws SQLException {
		try (ResultSet rows = executeQuery()) {
			return rows.next() ? rows.getLong(1) : 0;
		}
	}

	private int[] positions(String name) {
		int index = this.sql.indexOf(name);
		this.unbound &= ~(1L << index);
		return this.sql.positions(index);
	}

	private void requireAllBound() {
		if (this.unbound != 0) {
			int index = Long.numberOfTrailingZeros(this.unbound);
			throw new IllegalStateException("Parameter :" + this.sql.nameAt(index) + " is not bound in " + this.sql);
		}
		this.unbound = this.allNames;
	}

	@Override
	public void close() throws SQLException {
		if (this.cache == null) {
			this.statement.close();
			return;
		}
		// Closed rows reset the statement: it holds no read snapshot while it waits.
		if (this.rows != null) {
			this.rows.close();
			this.rows = null;
		}
		this.cache.release(this.sql, this.statement);
	}

}
