package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import dev.jobqueue.jdbc.Dialect;
import dev.jobqueue.jdbc.EpochMillisDialect;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlErrors;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * MySQL's and MariaDB's way with the shared statements.
 * <ul>
 * <li>Time is a {@code BIGINT} of epoch milliseconds, as on SQLite
 * ({@link EpochMillisDialect}): no server or session time zone changes it (a
 * {@code TIMESTAMP} is converted by the session's zone, a {@code DATETIME} by the
 * driver's), and it reads back as it was given.</li>
 * <li>Lists are one JSON array parameter read by {@code JSON_TABLE} (MySQL 8.0.4, MariaDB
 * 10.6), so a statement's text never depends on how many values it gets.</li>
 * <li>Row locks with {@code FOR UPDATE [SKIP LOCKED]}; an upsert is
 * {@code ON DUPLICATE KEY UPDATE}.</li>
 * <li>Neither UPDATE returns rows ({@code RETURNING} is MariaDB's, on INSERT and DELETE
 * only), so the store's statements that read what they changed lock the rows first and
 * read them after; an INSERT's id comes back as the driver's generated key.</li>
 * </ul>
 */
public final class MysqlDialect implements EpochMillisDialect {

	public static final MysqlDialect INSTANCE = new MysqlDialect();

	/** MySQL's error of a row that a unique key refused. */
	static final int DUPLICATE_KEY = 1062;

	private MysqlDialect() {
	}

	/** The queue's tables in the connection's database under {@code prefix}. */
	public static Tables tables(String prefix) {
		return new Tables(null, prefix, INSTANCE);
	}

	@Override
	public String name() {
		return "MySQL";
	}

	@Override
	public boolean isUniqueViolation(SQLException ex) {
		return SqlErrors.vendorCode(ex) == DUPLICATE_KEY;
	}

	/** A worker's types are a comma-separated list. */
	@Override
	public String textListContains(String list, String value) {
		return "FIND_IN_SET(" + value + ", " + list + ") > 0";
	}

	/**
	 * {@code VALUES(column)}: MySQL 8.0.20 deprecates it for a row alias, which MariaDB
	 * does not have.
	 */
	@Override
	public String upsert(String insert, String key, List<String> columns) {
		StringBuilder sql = new StringBuilder(insert.strip()).append("\nON DUPLICATE KEY UPDATE ");
		for (int i = 0; i < columns.size(); i++) {
			sql.append((i > 0) ? ", " : "")
				.append(columns.get(i))
				.append(" = VALUES(")
				.append(columns.get(i))
				.append(')');
		}
		return sql.append('\n').toString();
	}

	/**
	 * {@code ON DUPLICATE KEY UPDATE n = n + VALUES(n)}: MySQL's insert takes no alias.
	 */
	@Override
	public String upsertAdding(String table, List<String> key, List<String> counts) {
		StringBuilder sql = new StringBuilder(Dialect.insertOf(table, key, counts))
			.append("\nON DUPLICATE KEY UPDATE ");
		for (int i = 0; i < counts.size(); i++) {
			String count = counts.get(i);
			sql.append((i > 0) ? ", " : "")
				.append(count)
				.append(" = ")
				.append(count)
				.append(" + VALUES(")
				.append(count)
				.append(')');
		}
		return sql.append('\n').toString();
	}

	/**
	 * {@code INSERT IGNORE}: with {@code ON DUPLICATE KEY UPDATE} a row left as it was
	 * counts as found, so the insert could not tell that it inserted nothing.
	 */
	@Override
	public String insertUnlessPresent(String insert, String key) {
		return insert.strip().replaceFirst("^INSERT ", "INSERT IGNORE ") + "\n";
	}

	@Override
	public String fragment(String name, String parameter) {
		return switch (name) {
			case "in_ids" -> "IN (SELECT id FROM " + idTable(parameter) + " AS list)";
			case "id_table" -> idTable(parameter);
			case "in_texts" -> "IN (" + texts(parameter) + ")";
			case "not_in_texts" -> "NOT IN (" + texts(parameter) + ")";
			case "for_update" -> "FOR UPDATE";
			case "for_update_skip_locked" -> "FOR UPDATE SKIP LOCKED";
			case "for_share" -> "LOCK IN SHARE MODE";
			default -> null;
		};
	}

	/**
	 * A list of ids as a table of one column, {@code id}: to join in an UPDATE or DELETE,
	 * where MariaDB before 11.1 runs {@code IN (subquery)} once per row of the table.
	 */
	private static String idTable(String parameter) {
		return "JSON_TABLE(" + parameter + ", '$[*]' COLUMNS (id BIGINT PATH '$'))";
	}

	/** Texts in the tables' collation, so comparing them needs no conversion. */
	private static String texts(String parameter) {
		return "SELECT value FROM JSON_TABLE(" + parameter
				+ ", '$[*]' COLUMNS (value VARCHAR(500) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$')) AS list";
	}

	/** An INSERT is prepared to hand back the id it generated. */
	@Override
	public SqlStatement prepare(Connection connection, Sql sql) throws SQLException {
		PreparedStatement statement = sql.text().startsWith("INSERT")
				? connection.prepareStatement(sql.text(), Statement.RETURN_GENERATED_KEYS)
				: connection.prepareStatement(sql.text());
		return new SqlStatement(sql, statement, SqlStatement.Release.CLOSE);
	}

}
