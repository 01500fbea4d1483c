package dev.jobqueue.jdbc;

import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;

/**
 * A prepared {@link Sql}, bound by name. Instants and lists are bound the way the
 * statement's {@link Dialect} keeps them; {@code null} is SQL NULL. Every name must be
 * bound before each execution or batch entry, so a forgotten parameter fails at once
 * instead of reusing the previous row's value.
 */
public final class SqlStatement implements AutoCloseable {

	/** What happens to the JDBC statement when this one closes. */
	@FunctionalInterface
	public interface Release {

		/** Closes the statement, or keeps it for the next use of the same {@link Sql}. */
		void release(Sql sql, PreparedStatement statement) throws SQLException;

		/** Closes the statement. */
		Release CLOSE = (sql, statement) -> statement.close();

	}

	private final Sql sql;

	private final PreparedStatement statement;

	private final Release release;

	private final long allNames;

	/** One bit per name not bound since the last execution or batch entry. */
	private long unbound;

	/** The rows of the last query, closed before a kept statement goes back. */
	private ResultSet rows;

	public SqlStatement(Sql sql, PreparedStatement statement, Release release) {
		this.sql = sql;
		this.statement = statement;
		this.release = release;
		this.allNames = (sql.parameterCount() == Long.SIZE) ? -1L : (1L << sql.parameterCount()) - 1;
		this.unbound = this.allNames;
	}

	public SqlStatement bind(String name, String value) throws SQLException {
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

	public SqlStatement bind(String name, long value) throws SQLException {
		for (int position : positions(name)) {
			this.statement.setLong(position, value);
		}
		return this;
	}

	/** A nullable number. */
	public SqlStatement bind(String name, Long value) throws SQLException {
		if (value == null) {
			for (int position : positions(name)) {
				this.statement.setNull(position, Types.BIGINT);
			}
			return this;
		}
		return bind(name, value.longValue());
	}

	public SqlStatement bind(String name, int value) throws SQLException {
		for (int position : positions(name)) {
			this.statement.setInt(position, value);
		}
		return this;
	}

	/** A nullable number. */
	public SqlStatement bind(String name, Integer value) throws SQLException {
		if (value == null) {
			for (int position : positions(name)) {
				this.statement.setNull(position, Types.INTEGER);
			}
			return this;
		}
		return bind(name, value.intValue());
	}

	/**
	 * A flag, for a boolean column or a {@code WHERE :flag} test (0 or 1 where the
	 * database has no boolean type).
	 */
	public SqlStatement bind(String name, boolean value) throws SQLException {
		for (int position : positions(name)) {
			this.statement.setBoolean(position, value);
		}
		return this;
	}

	/** As the dialect keeps time (see {@link Dialect#setInstant}). */
	public SqlStatement bind(String name, Instant value) throws SQLException {
		for (int position : positions(name)) {
			this.sql.dialect().setInstant(this.statement, position, value);
		}
		return this;
	}

	/**
	 * A list of ids for a {@code {in_ids :name}} fragment, bound as the dialect expects
	 * it (see {@link Dialect#setIds}).
	 */
	public SqlStatement bindIds(String name, Collection<Long> ids) throws SQLException {
		for (int position : positions(name)) {
			this.sql.dialect().setIds(this.statement, position, ids);
		}
		return this;
	}

	/**
	 * A list of strings for a {@code {in_texts :name}} fragment, bound as the dialect
	 * expects it (see {@link Dialect#setTexts}).
	 */
	public SqlStatement bindTexts(String name, Collection<String> texts) throws SQLException {
		for (int position : positions(name)) {
			this.sql.dialect().setTexts(this.statement, position, texts);
		}
		return this;
	}

	/**
	 * A list of texts as a text list column keeps it (see {@link Dialect#textList}).
	 */
	public SqlStatement bindTextList(String name, Collection<String> texts) throws SQLException {
		for (int position : positions(name)) {
			this.sql.dialect().setTextList(this.statement, position, texts);
		}
		return this;
	}

	/**
	 * A SQL array of {@code elementType} ({@code text}, {@code int8}, {@code bool}...),
	 * for databases that have arrays.
	 */
	public SqlStatement bindArray(String name, String elementType, Object[] values) throws SQLException {
		Array array = this.statement.getConnection().createArrayOf(elementType, values);
		for (int position : positions(name)) {
			this.statement.setArray(position, array);
		}
		return this;
	}

	/**
	 * The values of a list parameter ({@link Sql#parse} with a list size), in order.
	 */
	public SqlStatement bindEach(String name, Collection<String> values) throws SQLException {
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

	public void addBatch() throws SQLException {
		requireAllBound();
		this.statement.addBatch();
	}

	public int[] executeBatch() throws SQLException {
		return this.statement.executeBatch();
	}

	public int executeUpdate() throws SQLException {
		requireAllBound();
		return this.statement.executeUpdate();
	}

	/** The caller closes the rows (or this statement, which closes them). */
	public ResultSet executeQuery() throws SQLException {
		requireAllBound();
		this.rows = this.statement.executeQuery();
		return this.rows;
	}

	/**
	 * Runs an INSERT of one row and returns the id the database generated for it, where
	 * the dialect prepared the statement to return generated keys.
	 */
	public long executeInsert() throws SQLException {
		executeUpdate();
		try (ResultSet keys = this.statement.getGeneratedKeys()) {
			if (!keys.next()) {
				throw new SQLException("The database returned no generated id for: " + this.sql);
			}
			return keys.getLong(1);
		}
	}

	/**
	 * @return the first column of the first row, or {@code null} when there is no row
	 */
	public String queryString() throws SQLException {
		try (ResultSet rows = executeQuery()) {
			return rows.next() ? rows.getString(1) : null;
		}
	}

	/**
	 * @return the first column of every row, in order
	 */
	public List<String> queryStrings() throws SQLException {
		List<String> values = new ArrayList<>();
		try (ResultSet rows = executeQuery()) {
			while (rows.next()) {
				values.add(rows.getString(1));
			}
		}
		return values;
	}

	/**
	 * @return the first column of the first row, or 0 when there is no row
	 */
	public long queryLong() throws SQLException {
		try (ResultSet rows = executeQuery()) {
			return rows.next() ? rows.getLong(1) : 0;
		}
	}

	/**
	 * @return whether the query returned a row
	 */
	public boolean queryAny() throws SQLException {
		try (ResultSet rows = executeQuery()) {
			return rows.next();
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
		// Closed rows reset a kept statement: it holds no read snapshot while it waits.
		if (this.rows != null) {
			this.rows.close();
			this.rows = null;
		}
		this.release.release(this.sql, this.statement);
	}

}
