package dev.jobqueue.sqlite;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import javax.sql.DataSource;

/**
 * The plans of statements on a test database ({@code EXPLAIN QUERY PLAN}, one step a
 * line) and the rule every plan test of the store holds them to: each read of a table is
 * a search of an index with a condition.
 */
final class QueryPlans {

	private QueryPlans() {
	}

	/** The steps of the plan of {@code sql}, printed with the statement. */
	static List<String> of(DataSource dataSource, String sql) {
		List<String> plan = new ArrayList<>();
		try (Connection connection = dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("EXPLAIN QUERY PLAN " + sql)) {
			while (rows.next()) {
				plan.add(rows.getString("detail"));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		System.out.println("EXPLAIN QUERY PLAN " + sql.strip().replaceAll("\\s+", " ") + " -> " + plan);
		return plan;
	}

	/**
	 * Whether a step of a plan reads no table whole: a {@code SEARCH} by an index or the
	 * primary key with a condition in parentheses ({@code (type=? AND status=?)}), or a
	 * step that reads no table (a constant row, a list of ids from {@code json_each}, a
	 * subquery, a filter). A {@code SCAN} of a table, even {@code USING INDEX} (a walk of
	 * the whole index), is not; nor is a skip-scan ({@code (ANY(created_at) AND ...)}),
	 * which walks every value of the index's leading column.
	 */
	static boolean searchesWithACondition(String step) {
		if (step.startsWith("SEARCH ")) {
			return step.matches("SEARCH \\S+ USING (COVERING INDEX \\S+|INDEX \\S+|INTEGER PRIMARY KEY|PRIMARY KEY) "
					+ "\\((?!ANY\\().+\\)");
		}
		if (step.startsWith("SCAN ")) {
			return step.equals("SCAN CONSTANT ROW") || step.startsWith("SCAN json_each VIRTUAL TABLE");
		}
		return true;
	}

	/**
	 * As {@link #searchesWithACondition}, except that a {@code SCAN} of a table
	 * {@code USING INDEX index} (a walk of the whole of that index, which a statement
	 * makes by design) passes; a scan of the table or of another index still fails.
	 */
	static Predicate<String> searchesWithAConditionBesideWalksOf(String index) {
		return (step) -> searchesWithACondition(step)
				|| step.matches("SCAN \\S+ USING (COVERING )?INDEX " + Pattern.quote(index));
	}

}
