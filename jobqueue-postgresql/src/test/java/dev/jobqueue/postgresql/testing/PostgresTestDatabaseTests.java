package dev.jobqueue.postgresql.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixture's databases are copies of a template, not migrated in place: the copy must
 * hold what the migrations make, or every PostgreSQL test would test another schema than
 * the one applications get.
 */
@PostgresTest
class PostgresTestDatabaseTests {

	@Test
	void aTestDatabaseHoldsTheTablesAndHistoryTheMigrationsMakeInPlace() throws SQLException {
		String inPlace = PostgresTestDatabase.createDatabase();
		try (PostgresTestDatabase copy = PostgresTestDatabase.create()) {
			// Opening migrates, as an application's start does.
			PostgresTestDatabase.open(inPlace, 2).close();
			Map<String, String> migrated = describe(inPlace);
			assertThat(migrated.get("columns")).as("the database migrated in place")
				.contains("jobs.id ")
				.contains("job_attempts.job_id ");
			assertThat(describe(copy.name())).isEqualTo(migrated);
		}
		finally {
			PostgresTestDatabase.dropDatabase(inPlace);
		}
	}

	/**
	 * The queue's columns, indexes, constraints and functions in the public schema, and
	 * the migration history's rows as Flyway checks them.
	 */
	private static Map<String, String> describe(String database) throws SQLException {
		Map<String, String> described = new LinkedHashMap<>();
		try (Connection connection = DriverManager.getConnection(PostgresServer.urlOf(database));
				Statement statement = connection.createStatement()) {
			described.put("columns",
					rows(statement,
							"SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' "
									+ "|| coalesce(column_default, '') FROM information_schema.columns "
									+ "WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"));
			described.put("indexes", rows(statement,
					"SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY tablename, indexname"));
			described.put("constraints",
					rows(statement, "SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) "
							+ "FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1"));
			described.put("functions", rows(statement, "SELECT proname || ' ' || md5(prosrc) FROM pg_proc "
					+ "WHERE pronamespace = 'public'::regnamespace ORDER BY 1"));
			described.put("history rows",
					rows(statement, "SELECT installed_rank || ' ' || coalesce(version, '') || ' ' || description "
							+ "|| ' ' || type || ' ' || script || ' ' || coalesce(checksum::text, '') || ' ' || success "
							+ "FROM jobqueue_schema_history ORDER BY installed_rank"));
		}
		return described;
	}

	private static String rows(Statement statement, String sql) throws SQLException {
		StringBuilder rows = new StringBuilder();
		try (ResultSet result = statement.executeQuery(sql)) {
			while (result.next()) {
				rows.append(result.getString(1)).append('\n');
			}
		}
		return rows.toString();
	}

}
