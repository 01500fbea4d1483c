package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plans of the queue's statements on a test database, as the server runs them
 * prepared: {@code EXPLAIN ANALYZE} with a generic plan, in a transaction that is rolled
 * back, so a plan of a write changes nothing. Each plan is printed with what the table
 * holds, for the figures in {@code docs/postgresql.md}.
 */
final class QueryPlans {

	private final PostgresTestDatabase database;

	private final String data;

	private Map<String, String> leadingColumns;

	/**
	 * @param data what the tables hold, printed with each plan
	 */
	QueryPlans(PostgresTestDatabase database, String data) {
		this.database = database;
		this.data = data;
	}

	/**
	 * The plan of {@code template} with each of {@code parameters} bound by name (a
	 * {@link String}, {@link Long}, {@link Integer}, {@link Instant}, a {@link Set} of
	 * texts, or an array of texts, numbers or flags).
	 */
	List<String> explain(String template, Map<String, Object> parameters) throws SQLException {
		String heading = template.lines().filter((line) -> !line.isBlank()).findFirst().orElse("").trim();
		return explain(heading, template, (sql, statement) -> {
			for (Map.Entry<String, Object> parameter : parameters.entrySet()) {
				bind(statement, parameter.getKey(), parameter.getValue());
			}
		});
	}

	/**
	 * The plan of {@code template}, printed under {@code name}, with every parameter
	 * bound to the sample value {@code valueOf} gives for its name.
	 */
	List<String> explain(String name, String template, Function<String, Object> valueOf) throws SQLException {
		return explain(name, template, (sql, statement) -> {
			for (String parameter : sql.names()) {
				bind(statement, parameter, valueOf.apply(parameter));
			}
		});
	}

	private List<String> explain(String heading, String template, Binding binding) throws SQLException {
		Sql sql = this.database.storage()
			.tables()
			.sql("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) " + template);
		try (Connection connection = this.database.dataSource().getConnection()) {
			connection.setAutoCommit(false);
			try (Statement settings = connection.createStatement()) {
				settings.execute("SET LOCAL plan_cache_mode = force_generic_plan");
			}
			List<String> lines = new ArrayList<>();
			try (SqlStatement explain = sql.prepare(connection)) {
				binding.bind(sql, explain);
				try (ResultSet rows = explain.executeQuery()) {
					while (rows.next()) {
						lines.add(rows.getString(1));
					}
				}
			}
			finally {
				connection.rollback();
			}
			System.out.println("---- " + heading + " (" + this.data + ")\n" + String.join("\n", lines));
			return lines;
		}
	}

	private static final Pattern SCAN = Pattern.compile(
			"(Seq Scan|Index Scan(?: Backward)?|Index Only Scan(?: Backward)?|Bitmap Index Scan)(?: using (\\S+))? on "
					+ "(\\S+)(?: (\\w+))?(?: \\(.*)?");

	private static final Pattern NODE_OR_LABEL = Pattern.compile("\\s*(->|CTE |InitPlan|SubPlan).*");

	/**
	 * The reads of {@code tables} in a plan that are not a search of an index with a
	 * condition: a {@code Seq Scan}, or an index scan (plain, index-only or bitmap)
	 * without an {@code Index Cond} on the index's first column. Without one the scan
	 * walks the whole index, even with a condition on a later column, which the server
	 * checks on every entry. A bitmap index scan is named by its index: pass the table's
	 * indexes' common prefix ({@code jobs_}) to reach them.
	 */
	List<String> fullScans(List<String> plan, String... tables) {
		List<String> found = new ArrayList<>();
		for (int i = 0; i < plan.size(); i++) {
			String node = plan.get(i).replaceFirst("^\\s*(->\\s*)?", "");
			Matcher scan = SCAN.matcher(node);
			if (!scan.matches() || !readsOneOf(scan.group(3), tables)) {
				continue;
			}
			String index = (scan.group(2) != null) ? scan.group(2) : scan.group(3);
			Pattern onFirstColumn = Pattern.compile(".*[(\\s](\\w+\\.)?"
					+ Pattern.quote(leadingColumns().getOrDefault(index, "")) + "\\s*(=|<|>|IS |~~).*");
			boolean searched = false;
			for (int j = i + 1; j < plan.size() && !NODE_OR_LABEL.matcher(plan.get(j)).matches(); j++) {
				String line = plan.get(j).strip();
				searched |= line.startsWith("Index Cond:") && onFirstColumn.matcher(line).matches();
			}
			if (scan.group(1).equals("Seq Scan") || !searched) {
				found.add(node);
			}
		}
		return found;
	}

	/**
	 * Every read of the jobs in {@code plan} searches an index with a condition on its
	 * first column: no {@code Seq Scan} of the table, no walk of a whole index.
	 */
	void assertSearchesOnly(List<String> plan) {
		assertThat(fullScans(plan, "jobs", "jobs_")).as(String.join("\n", plan)).isEmpty();
	}

	/**
	 * As {@link #assertSearchesOnly}, except for walks of the whole of one of
	 * {@code indexes} (an index scan without a condition on its first column, never a
	 * {@code Seq Scan}), which one statement makes by design, for {@code reason}; a walk
	 * of any other index, or of the table, still fails.
	 */
	void assertSearchesOnlyBesideWalksOf(List<String> plan, String reason, String... indexes) {
		String walked = "(" + String.join("|", Arrays.stream(indexes).map(Pattern::quote).toList()) + ")";
		assertThat(fullScans(plan, "jobs", "jobs_")).as(reason + "\n" + String.join("\n", plan))
			.allMatch((scan) -> scan
				.matches("(Index Scan|Index Only Scan|Bitmap Index Scan)( Backward)? (using|on) " + walked + " .*"));
	}

	/** The first column of each index of the test database's tables, by index. */
	private Map<String, String> leadingColumns() {
		if (this.leadingColumns == null) {
			this.leadingColumns = new HashMap<>();
			for (Object row : this.database.column("""
					SELECT i.relname || ' ' || a.attname FROM pg_index x
					JOIN pg_class i ON i.oid = x.indexrelid
					JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
					WHERE i.relnamespace = current_schema()::regnamespace
					""")) {
				String[] indexAndColumn = row.toString().split(" ");
				this.leadingColumns.put(indexAndColumn[0], indexAndColumn[1]);
			}
		}
		return this.leadingColumns;
	}

	private static boolean readsOneOf(String relation, String... tables) {
		for (String table : tables) {
			if (relation.equals(table) || (table.endsWith("_") && relation.startsWith(table))) {
				return true;
			}
		}
		return false;
	}

	@SuppressWarnings("unchecked")
	private static void bind(SqlStatement statement, String name, Object value) throws SQLException {
		if (value instanceof String text) {
			statement.bind(name, text);
		}
		else if (value instanceof Long number) {
			statement.bind(name, number.longValue());
		}
		else if (value instanceof Integer number) {
			statement.bind(name, number.intValue());
		}
		else if (value instanceof Instant instant) {
			statement.bind(name, instant);
		}
		else if (value instanceof Set<?> texts) {
			statement.bindTexts(name, (Set<String>) texts);
		}
		else if (value instanceof String[] texts) {
			statement.bindArray(name, "text", texts);
		}
		else if (value instanceof Integer[] numbers) {
			statement.bindArray(name, "int4", numbers);
		}
		else if (value instanceof Long[] numbers) {
			statement.bindArray(name, "int8", numbers);
		}
		else if (value instanceof Boolean[] flags) {
			statement.bindArray(name, "bool", flags);
		}
		else {
			throw new IllegalArgumentException("No binding for :" + name + " = " + value);
		}
	}

	@FunctionalInterface
	private interface Binding {

		void bind(Sql sql, SqlStatement statement) throws SQLException;

	}

}
