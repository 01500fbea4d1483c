package dev.jobqueue.benchmarks;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SQLite cost counter counts: on a table of known rows and indexes, the log shows
 * exactly the rows and index entries each statement must write, and so does the
 * derivation from the schema; a quick run of every measurement agrees with its derivation
 * and finds lean tables cheaper than the queue's.
 */
class SqliteJobCostTests {

	private static final String SCHEMA = """
			CREATE TABLE items (id INTEGER PRIMARY KEY, state TEXT NOT NULL, name TEXT NOT NULL, note TEXT);
			CREATE INDEX items_state_idx ON items (state);
			CREATE INDEX items_open_name_idx ON items (name) WHERE state = 'open'
			""";

	@TempDir
	Path directory;

	@Test
	void theLogShowsTheRowsAndIndexEntriesOfEachStatement() throws Exception {
		Path file = this.directory.resolve("items.db");
		try (Connection setUp = open(file); Statement statement = setUp.createStatement()) {
			for (String sql : SCHEMA.split(";")) {
				statement.execute(sql);
			}
		}
		// One row in: the table and both indexes gain one
		assertThat(counted(file, "INSERT INTO items (state, name) VALUES ('open', 'a')"))
			.containsEntry("items", new SqliteWalChanges.Btree(1, 1, 0))
			.containsEntry("items_state_idx", new SqliteWalChanges.Btree(1, 1, 0))
			.containsEntry("items_open_name_idx", new SqliteWalChanges.Btree(1, 1, 0));
		// A column no index holds: the row is rewritten, no index is touched
		assertThat(counted(file, "UPDATE items SET note = 'n'"))
			.containsEntry("items", new SqliteWalChanges.Btree(1, 1, 1))
			.doesNotContainKeys("items_state_idx", "items_open_name_idx");
		// The state: its index moves the entry, the partial index loses it
		assertThat(counted(file, "UPDATE items SET state = 'closed'"))
			.containsEntry("items_state_idx", new SqliteWalChanges.Btree(1, 1, 1))
			.containsEntry("items_open_name_idx", new SqliteWalChanges.Btree(1, 0, 1));
		// Thousands of rows in one transaction split pages: entries that move to a new
		// page count once, as added
		Map<String, SqliteWalChanges.Btree> bulk = counted(file, """
				INSERT INTO items (state, name, note)
				WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
				SELECT 'open', 'name ' || i, printf('%.200c', 'x') FROM n
				""");
		assertThat(bulk.get("items").added()).isEqualTo(3000);
		assertThat(bulk.get("items").removed()).isZero();
		assertThat(bulk.get("items").frames()).isGreaterThan(100);
		assertThat(bulk.get("items_open_name_idx").added()).isEqualTo(3000);
		assertThat(bulk.get("items_state_idx").added()).isEqualTo(3000);
		// Deleting them frees most of their pages, which SQLite never writes again: their
		// cells leave all the same; the next transaction takes the pages off the free
		// list, and what they held before does not leave twice
		Map<String, SqliteWalChanges.Btree> deletedAndAgain = counted(file, "DELETE FROM items WHERE note IS NOT 'n'",
				"""
						INSERT INTO items (state, name, note)
						WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
						SELECT 'closed', 'again ' || i, printf('%.200c', 'y') FROM n
						""");
		assertThat(deletedAndAgain.get("items"))
			.extracting(SqliteWalChanges.Btree::added, SqliteWalChanges.Btree::removed)
			.containsExactly(1000L, 3000L);
		assertThat(deletedAndAgain.get("items_state_idx"))
			.extracting(SqliteWalChanges.Btree::added, SqliteWalChanges.Btree::removed)
			.containsExactly(1000L, 3000L);
		assertThat(deletedAndAgain.get("items_open_name_idx"))
			.extracting(SqliteWalChanges.Btree::added, SqliteWalChanges.Btree::removed)
			.containsExactly(0L, 3000L);
		assertThat(deletedAndAgain.get("(free list)"))
			.extracting(SqliteWalChanges.Btree::added, SqliteWalChanges.Btree::removed)
			.containsExactly(0L, 0L);
	}

	@Test
	void theDerivationFromTheSchemaMatchesTheStatements() throws Exception {
		try (Connection connection = open(this.directory.resolve("derived.db"));
				Statement statement = connection.createStatement()) {
			for (String sql : SCHEMA.split(";")) {
				statement.execute(sql);
			}
			SqliteDerivedChanges changes = SqliteDerivedChanges.install(connection, "none");
			statement.execute("INSERT INTO items (state, name) VALUES ('open', 'a'), ('open', 'b')");
			statement.execute("UPDATE items SET note = 'n'");
			statement.execute("UPDATE items SET state = 'closed' WHERE name = 'a'");
			statement.execute("DELETE FROM items WHERE name = 'b'");
			assertThat(changes.derive(connection)).containsOnly(Map.entry("items", new SqliteWalChanges.Btree(0, 5, 4)),
					Map.entry("items_state_idx", new SqliteWalChanges.Btree(0, 3, 2)),
					Map.entry("items_open_name_idx", new SqliteWalChanges.Btree(0, 2, 2)));
		}
	}

	@Test
	void aQuickRunOfEveryMeasurementCountsAndAgreesWithItsDerivation() throws Exception {
		List<SqliteJobCostMain.Cost> costs = SqliteJobCostMain.measure(this.directory, 60);

		assertThat(costs).hasSize(5);
		assertThat(SqliteJobCostMain.problems(costs)).isEmpty();
		for (SqliteJobCostMain.Cost cost : costs) {
			assertThat(cost.log().bytes()).as(cost.name()).isPositive();
			assertThat(cost.rowsWritten()).as(cost.name()).isPositive();
			assertThat(cost.row()).as(cost.name()).startsWith("| " + cost.name() + " |").contains("| equal |");
		}
		SqliteJobCostMain.Cost lifecycle = costs.get(0);
		SqliteJobCostMain.Cost retry = costs.get(1);
		assertThat(retry.indexEntriesAdded()).isGreaterThan(lifecycle.indexEntriesAdded());
		assertThat(costs.get(4).indexEntriesAdded()).isLessThan(costs.get(3).indexEntriesAdded());
	}

	/** The changes of statements run one after the other, counted from the log. */
	private static Map<String, SqliteWalChanges.Btree> counted(Path file, String... transactions) throws Exception {
		try (Connection pin = open(file);
				Connection writer = open(file);
				Statement statement = writer.createStatement()) {
			SqliteJobCostMain.pinEmptyLog(pin);
			for (String sql : transactions) {
				statement.execute(sql);
			}
			Map<String, SqliteWalChanges.Btree> btrees = SqliteJobCostMain.readPinnedLog(file, pin).btrees();
			pin.commit();
			return btrees;
		}
	}

	private static Connection open(Path file) throws SQLException {
		Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file);
		try (Statement statement = connection.createStatement()) {
			statement.execute("PRAGMA journal_mode=WAL");
		}
		return connection;
	}

}
