package dev.jobqueue.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The rows and index entries that a run's row changes must write, derived from the schema
 * as SQLite keeps it ({@code sqlite_master}, {@code index_xinfo}): triggers log every
 * inserted, updated and deleted row of the queue's tables with its values before and
 * after; then an index gains an entry for a row that is in it after the change (its
 * partial {@code WHERE} holds) unless the row was in it before with the same key columns,
 * and loses one for a row that was in it before unless it still is with the same key. A
 * table's own b-tree gains a cell for each inserted or changed row and loses one for each
 * deleted or changed row. The same counts as {@link SqliteWalChanges} reads from the log,
 * so each confirms the other.
 */
final class SqliteDerivedChanges {

	private static final String LOG_PREFIX = "cost_log_";

	private static final Pattern PARTIAL = Pattern.compile("(?is)\\)\\s*WHERE\\s+(.+)$");

	private final List<String> tables;

	private SqliteDerivedChanges(List<String> tables) {
		this.tables = tables;
	}

	/**
	 * Creates a log table and triggers for every table of the queue (all but SQLite's own
	 * and {@code except}), empty.
	 */
	static SqliteDerivedChanges install(Connection connection, String except) throws SQLException {
		List<String> tables = new ArrayList<>();
		try (Statement statement = connection.createStatement()) {
			try (ResultSet rows = statement.executeQuery("SELECT name FROM sqlite_master WHERE type = 'table' "
					+ "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '" + LOG_PREFIX + "%' "
					+ "AND name <> '" + except + "' ORDER BY name")) {
				while (rows.next()) {
					tables.add(rows.getString(1));
				}
			}
			for (String table : tables) {
				List<String> columns = columns(statement, table);
				String names = columns.stream().map(SqliteDerivedChanges::quote).collect(Collectors.joining(", "));
				statement.execute("CREATE TABLE " + quote(LOG_PREFIX + table)
						+ " (log_id INTEGER PRIMARY KEY, log_op TEXT NOT NULL, " + names + ")");
				statement.execute(trigger(table, "INSERT", "'insert', " + values("NEW", columns), names));
				statement.execute(trigger(table, "DELETE", "'delete', " + values("OLD", columns), names));
				statement.execute(trigger(table, "UPDATE",
						"'before', " + values("OLD", columns) + "), ('after', " + values("NEW", columns), names));
			}
		}
		return new SqliteDerivedChanges(tables);
	}

	/**
	 * Cells added and removed per b-tree (tables and indexes by name), from the changes
	 * logged so far.
	 */
	Map<String, SqliteWalChanges.Btree> derive(Connection connection) throws SQLException {
		Map<String, SqliteWalChanges.Btree> btrees = new TreeMap<>();
		try (Statement statement = connection.createStatement()) {
			for (String table : this.tables) {
				List<String> columns = columns(statement, table);
				btrees.put(table, count(statement, table, "1", columns));
				for (Index index : indexes(statement, table)) {
					btrees.put(index.name, count(statement, table, index.where, index.key));
				}
			}
		}
		btrees.values().removeIf((btree) -> btree.added() == 0 && btree.removed() == 0);
		return btrees;
	}

	/**
	 * Cells that the logged changes of {@code table} add to and remove from a b-tree
	 * holding the rows for which {@code where} holds, keyed by {@code key}.
	 */
	private static SqliteWalChanges.Btree count(Statement statement, String table, String where, List<String> key)
			throws SQLException {
		String keys = key.isEmpty() ? ""
				: ", " + key.stream().map(SqliteDerivedChanges::quote).collect(Collectors.joining(", "));
		long added = 0;
		long removed = 0;
		try (ResultSet rows = statement.executeQuery("SELECT log_op, coalesce((" + where + "), 0) <> 0" + keys
				+ " FROM " + quote(LOG_PREFIX + table) + " ORDER BY log_id")) {
			while (rows.next()) {
				String op = rows.getString(1);
				boolean inside = rows.getBoolean(2);
				if (op.equals("insert")) {
					added += inside ? 1 : 0;
				}
				else if (op.equals("delete")) {
					removed += inside ? 1 : 0;
				}
				else {
					List<Object> before = values(rows, key.size());
					if (!rows.next() || !rows.getString(1).equals("after")) {
						throw new IllegalStateException("An update of " + table + " logged no row after it");
					}
					boolean insideAfter = rows.getBoolean(2);
					boolean keyChanged = !Objects.equals(before, values(rows, key.size()));
					added += (insideAfter && (!inside || keyChanged)) ? 1 : 0;
					removed += (inside && (!insideAfter || keyChanged)) ? 1 : 0;
				}
			}
		}
		return new SqliteWalChanges.Btree(0, added, removed);
	}

	private static List<Object> values(ResultSet rows, int count) throws SQLException {
		List<Object> values = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			values.add(rows.getObject(3 + i));
		}
		return values;
	}

	/** An index: its name, the columns of its entries, and its partial condition. */
	private record Index(String name, List<String> key, String where) {

	}

	/**
	 * The indexes of a table that are b-trees of their own (a {@code WITHOUT ROWID}
	 * table's primary key is the table's b-tree), with every column their entries hold:
	 * the indexed ones, and a {@code WITHOUT ROWID} table's primary key columns. An index
	 * on an expression is keyed by the whole row: any change may change the expression.
	 */
	private static List<Index> indexes(Statement statement, String table) throws SQLException {
		List<String[]> found = new ArrayList<>();
		try (ResultSet rows = statement.executeQuery("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
				+ "AND tbl_name = '" + table + "' AND rootpage <> (SELECT rootpage FROM sqlite_master "
				+ "WHERE type = 'table' AND name = '" + table + "') ORDER BY name")) {
			while (rows.next()) {
				found.add(new String[] { rows.getString(1), rows.getString(2) });
			}
		}
		List<Index> indexes = new ArrayList<>();
		for (String[] index : found) {
			List<String> key = new ArrayList<>();
			boolean expression = false;
			try (ResultSet columns = statement.executeQuery("PRAGMA index_xinfo(" + quote(index[0]) + ")")) {
				while (columns.next()) {
					String name = columns.getString("name");
					if (name != null) {
						key.add(name);
					}
					else if (columns.getInt("cid") == -2) {
						expression = true;
					}
				}
			}
			String where = "1";
			if (index[1] != null) {
				Matcher partial = PARTIAL.matcher(index[1]);
				if (partial.find()) {
					where = partial.group(1);
				}
			}
			indexes.add(new Index(index[0], expression ? columns(statement, table) : key, where));
		}
		return indexes;
	}

	private static List<String> columns(Statement statement, String table) throws SQLException {
		List<String> columns = new ArrayList<>();
		try (ResultSet rows = statement.executeQuery("PRAGMA table_info(" + quote(table) + ")")) {
			while (rows.next()) {
				columns.add(rows.getString("name"));
			}
		}
		return columns;
	}

	private static String trigger(String table, String event, String values, String names) {
		return "CREATE TRIGGER " + quote(LOG_PREFIX + table + "_" + event.toLowerCase()) + " AFTER " + event + " ON "
				+ quote(table) + " BEGIN INSERT INTO " + quote(LOG_PREFIX + table) + " (log_op, " + names + ") VALUES ("
				+ values + "); END";
	}

	private static String values(String row, List<String> columns) {
		return columns.stream().map((column) -> row + "." + quote(column)).collect(Collectors.joining(", "));
	}

	private static String quote(String name) {
		return "\"" + name.replace("\"", "\"\"") + "\"";
	}

}
