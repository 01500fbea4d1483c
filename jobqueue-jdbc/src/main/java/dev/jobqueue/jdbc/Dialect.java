package dev.jobqueue.jdbc;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one database does its own way in statements every store shares: how an instant and
 * a list of values are bound and read, and the few fragments of SQL that differ.
 * Statements of the shared store parts are written in the SQL every supported database
 * accepts (flags compared as {@code TRUE}/{@code FALSE} or tested bare, no {@code ::}
 * casts) plus these fragments:
 * <ul>
 * <li>{@code {in_ids :name}} and {@code {in_texts :name}}: "is one of the list bound to
 * {@code :name}" (bound with {@link SqlStatement#bindIds} or
 * {@link SqlStatement#bindTexts}), as {@code column {in_ids :ids}}; {@code {not_in_texts
 * :name}} its negation;</li>
 * <li>{@code {for_update}}: locks the rows a read returns until the transaction ends,
 * where the database locks rows (nothing where a write transaction holds the whole
 * database).</li>
 * <li>{@code {for_update_skip_locked}}: as {@code {for_update}}, leaving out the rows
 * another transaction has locked instead of waiting for them.</li>
 * <li>{@code {for_share}}: locks the rows a read returns against changes by others until
 * the transaction ends, while others may read and share-lock them too.</li>
 * </ul>
 * A store adds fragments of its own by overriding {@link #fragment}.
 */
public interface Dialect {

	/** The database's name, for messages: {@code SQLite}, {@code PostgreSQL}. */
	String name();

	/**
	 * Whether the database folds unquoted names to lower case (PostgreSQL does): then the
	 * table prefix is folded too, so the history table Flyway looks for is the one it
	 * made.
	 */
	default boolean foldsNamesToLowerCase() {
		return false;
	}

	/** Binds a point in time as this database keeps it; {@code null} as SQL NULL. */
	void setInstant(PreparedStatement statement, int position, Instant value) throws SQLException;

	/** Reads a column written by {@link #setInstant}; {@code null} for SQL NULL. */
	Instant instant(ResultSet rows, int column) throws SQLException;

	/** Reads a column written by {@link #setInstant}; {@code null} for SQL NULL. */
	Instant instant(ResultSet rows, String column) throws SQLException;

	/** Binds the list of a {@code {in_ids :name}} fragment. */
	void setIds(PreparedStatement statement, int position, Collection<Long> ids) throws SQLException;

	/** Binds the list of a {@code {in_texts :name}} fragment. */
	void setTexts(PreparedStatement statement, int position, Collection<String> texts) throws SQLException;

	/**
	 * Whether {@code ex} reports a row that a unique index refused; by default by the
	 * standard SQLSTATE {@code 23505}.
	 */
	default boolean isUniqueViolation(SQLException ex) {
		return "23505".equals(ex.getSQLState());
	}

	/**
	 * Where the database must be told which index a statement reads (SQLite's
	 * {@code INDEXED BY}), that hint for {@code index} (a name without the table prefix);
	 * by default nothing, the planner choosing.
	 */
	default String indexedBy(String index) {
		return "";
	}

	/**
	 * SQL that is true when the list of texts in column {@code list} (as the workers
	 * table keeps a worker's types) holds {@code value}; by default an array column.
	 */
	default String textListContains(String list, String value) {
		return value + " = ANY (" + list + ")";
	}

	/**
	 * SQL of the value of a text list column (see {@link #textListContains}) from
	 * {@code parameter} ({@code :types}), bound with {@link #setTextList}; by default the
	 * parameter itself.
	 */
	default String textList(String parameter) {
		return parameter;
	}

	/**
	 * Binds a list of texts for {@link #textList}; by default as {@link #setTexts}.
	 */
	default void setTextList(PreparedStatement statement, int position, Collection<String> texts) throws SQLException {
		setTexts(statement, position, texts);
	}

	/** Reads a column of a list of texts (see {@link #textListContains}). */
	default List<String> texts(ResultSet rows, int column) throws SQLException {
		Array array = rows.getArray(column);
		return (array != null) ? Arrays.asList((String[]) array.getArray()) : List.of();
	}

	/**
	 * {@code insert} (an {@code INSERT ... VALUES}) that, where a row with the same
	 * {@code key} (a unique key's columns) exists, sets its {@code columns} to the
	 * inserted values instead; by default {@code ON CONFLICT ... DO UPDATE}.
	 */
	default String upsert(String insert, String key, List<String> columns) {
		StringBuilder sql = new StringBuilder(insert.strip()).append("\nON CONFLICT (")
			.append(key)
			.append(") DO UPDATE SET ");
		for (int i = 0; i < columns.size(); i++) {
			sql.append((i > 0) ? ", " : "").append(columns.get(i)).append(" = excluded.").append(columns.get(i));
		}
		return sql.append('\n').toString();
	}

	/**
	 * An insert into {@code table} of {@code key} and {@code counts} columns (each bound
	 * to the parameter of its name) that, where a row with that key exists, adds the
	 * counts to the row's instead; by default {@code ON CONFLICT ... DO UPDATE SET n =
	 * t.n + excluded.n}. One statement, so concurrent writers of one row never lose a
	 * count.
	 */
	default String upsertAdding(String table, List<String> key, List<String> counts) {
		StringBuilder sql = new StringBuilder(insertOf(table + " AS t", key, counts)).append("\nON CONFLICT (")
			.append(String.join(", ", key))
			.append(") DO UPDATE SET ");
		for (int i = 0; i < counts.size(); i++) {
			String count = counts.get(i);
			sql.append((i > 0) ? ", " : "")
				.append(count)
				.append(" = t.")
				.append(count)
				.append(" + excluded.")
				.append(count);
		}
		return sql.append('\n').toString();
	}

	/**
	 * {@code INSERT INTO table (columns) VALUES (:columns)} of the {@code key} columns
	 * then the others.
	 */
	static String insertOf(String table, List<String> key, List<String> others) {
		List<String> columns = new ArrayList<>(key);
		columns.addAll(others);
		return "INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES (:" + String.join(", :", columns)
				+ ")";
	}

	/**
	 * {@code insert} (an {@code INSERT ... VALUES}) that inserts nothing where a row with
	 * the same {@code key} exists, and then reports no row inserted; by default
	 * {@code ON CONFLICT ... DO NOTHING}.
	 */
	default String insertUnlessPresent(String insert, String key) {
		return insert.strip() + "\nON CONFLICT (" + key + ") DO NOTHING\n";
	}

	/**
	 * The SQL of one fragment, or {@code null} when this dialect knows none of that name.
	 * @param name the fragment's name ({@code in_ids})
	 * @param parameter its parameter with the colon ({@code :ids}), or {@code null}
	 */
	String fragment(String name, String parameter);

	/**
	 * Prepares {@code sql} on {@code connection}; a dialect may keep statements across
	 * transactions.
	 */
	default SqlStatement prepare(Connection connection, Sql sql) throws SQLException {
		return new SqlStatement(sql, connection.prepareStatement(sql.text()), SqlStatement.Release.CLOSE);
	}

	/**
	 * Replaces every {@code {name}} or {@code {name :parameter}} fragment of {@code sql}.
	 */
	default String expand(String sql) {
		Matcher matcher = FRAGMENT.matcher(sql);
		StringBuilder expanded = new StringBuilder(sql.length() + 32);
		while (matcher.find()) {
			String replacement = fragment(matcher.group(1), matcher.group(2));
			if (replacement == null) {
				throw new IllegalArgumentException(
						"Unknown SQL fragment " + matcher.group() + " for " + name() + " in: " + sql);
			}
			matcher.appendReplacement(expanded, Matcher.quoteReplacement(replacement));
		}
		return matcher.appendTail(expanded).toString();
	}

	/** A fragment: a lower-case name and an optional {@code :parameter}. */
	Pattern FRAGMENT = Pattern.compile("\\{([a-z_]+)(?: (:[a-z_][a-z0-9_]*))?}");

}
