package dev.jobqueue.mysql.testing;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixture's databases are copies of a migrated schema, not migrated in place: the
 * copy must hold what the migrations make, or every MariaDB test would test another
 * schema than the one applications get.
 */
@MariaDbTest
class MysqlTestDatabaseTests {

	@Test
	void aTestDatabaseHoldsTheTablesAndHistoryTheMigrationsMakeInPlace() throws SQLException {
		String inPlace = MysqlTestDatabase.createDatabase();
		try (MysqlTestDatabase copy = MysqlTestDatabase.create()) {
			// Opening migrates, as an application's start does.
			MysqlTestDatabase.open(inPlace, 2).close();
			Map<String, String> migrated = describe(inPlace);
			assertThat(migrated).as("tables and history of the database migrated in place")
				.containsKeys("jobs", "job_attempts", "jobqueue_schema_history");
			assertThat(describe(copy.name())).isEqualTo(migrated);
		}
		finally {
			MysqlTestDatabase.dropDatabase(inPlace);
		}
	}

	/**
	 * Each table's {@code SHOW CREATE TABLE} (columns, indexes, foreign keys, options),
	 * and the migration history's rows as Flyway checks them.
	 */
	private static Map<String, String> describe(String database) throws SQLException {
		Map<String, String> described = new TreeMap<>();
		try (Connection connection = DriverManager.getConnection(MariaDbServer.urlOf(database));
				Statement statement = connection.createStatement()) {
			List<String> tables = new ArrayList<>();
			try (ResultSet names = statement.executeQuery("SELECT table_name FROM information_schema.tables "
					+ "WHERE table_schema = DATABASE() ORDER BY table_name")) {
				while (names.next()) {
					tables.add(names.getString(1));
				}
			}
			for (String table : tables) {
				try (ResultSet create = statement.executeQuery("SHOW CREATE TABLE `" + table + "`")) {
					create.next();
					described.put(table, create.getString(2));
				}
			}
			StringBuilder history = new StringBuilder();
			try (ResultSet rows = statement
				.executeQuery("SELECT installed_rank, version, description, type, script, checksum, success "
						+ "FROM jobqueue_schema_history ORDER BY installed_rank")) {
				while (rows.next()) {
					for (int column = 1; column <= 7; column++) {
						history.append(rows.getString(column)).append(column < 7 ? " | " : "\n");
					}
				}
			}
			described.put("history rows", history.toString());
		}
		return described;
	}

}
