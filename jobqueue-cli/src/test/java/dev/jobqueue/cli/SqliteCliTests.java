package dev.jobqueue.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tool on a SQLite file that an application's worker uses at the same time.
 */
class SqliteCliTests extends CliScenarios {

	@TempDir
	Path directory;

	@Override
	protected StoreFixture createQueue() {
		return TestDatabase.create(this.directory);
	}

	@Override
	protected String target() {
		return "--db=" + ((TestDatabase) this.db).file();
	}

	@Override
	protected void writeNewerSchemaVersion() {
		this.db.execute("INSERT INTO jobqueue_schema_history (installed_rank, version, description, type, script, "
				+ "checksum, installed_by, installed_on, execution_time, success) VALUES (999, '999', 'from the "
				+ "future', 'SQL', 'V999__future.sql', 0, 'test', CURRENT_TIMESTAMP, 0, 1)");
	}

	@Test
	void migrateCreatesAQueueInANewFileAndVerifiesIt() {
		Path file = this.directory.resolve("new").resolve("fresh.db");
		assertThat(Cli.run("migrate", "--verify", "--db=" + file).exitCode()).isEqualTo(3);
		assertThat(file).doesNotExist();
		// Through the jar: its migrations are found in the store's jar on the class path.
		Cli.Run migrate = Cli.jar("migrate", "--db=" + file);
		assertThat(migrate.exitCode()).as(migrate.toString()).isZero();
		assertThat(migrate.out()).contains("migrated from schema version none to");
		Cli.Run verify = Cli.run("migrate", "--verify", "--db=" + file, "--json");
		assertThat(verify.exitCode()).as(verify.toString()).isZero();
		assertThat(verify.json().get("pending").asInt()).isZero();
		Cli.Run again = Cli.run("migrate", "--db=" + file);
		assertThat(again.exitCode()).isZero();
		assertThat(again.out()).contains("was up to date");
		assertThat(Cli.run("status", "--db=" + file).exitCode()).isZero();
	}

	@Test
	void theBuiltJarNamesItsVersionAndShowsUsageWithoutArguments() {
		Cli.Run version = Cli.jar("--version");
		assertThat(version.exitCode()).as(version.toString()).isZero();
		assertThat(version.out().strip()).matches("jobqueue-cli \\d+\\.\\d+\\.\\d+.*");
		Cli.Run usage = Cli.jar();
		assertThat(usage.exitCode()).as(usage.toString()).isEqualTo(2);
		assertThat(usage.err()).contains("Usage: jobqueue-cli", "Exit codes:");
	}

	@Test
	void filesThatAreNoQueueAreRefusedAndLeftAsTheyAre() throws IOException, SQLException {
		Path missing = this.directory.resolve("missing.db");
		Cli.Run run = Cli.run("status", "--db=" + missing);
		assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
		assertThat(run.err()).contains("does not exist");
		assertThat(missing).doesNotExist();

		// A server URL given as a file would have named one in a folder
		// "jdbc:postgresql:".
		run = Cli.run("migrate", "--db=jdbc:postgresql://127.0.0.1/shop?user=ops&password=secret");
		assertThat(run.exitCode()).as(run.toString()).isEqualTo(2);
		assertThat(run.err().strip()).contains("not a JDBC URL", "--url=").doesNotContain("secret");
		assertThat(Path.of("jdbc:postgresql:")).doesNotExist();

		Path text = Files.writeString(this.directory.resolve("notes.txt"), "not a database\n");
		run = Cli.run("doctor", "--db=" + text);
		assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
		assertThat(run.err()).contains("is not a SQLite file");
		assertThat(Cli.run("migrate", "--db=" + text).exitCode()).isEqualTo(3);
		assertThat(Files.readString(text)).isEqualTo("not a database\n");

		Path empty = Files.createFile(this.directory.resolve("empty.db"));
		assertThat(Cli.run("jobs", "--db=" + empty).exitCode()).isEqualTo(3);
		assertThat(Files.size(empty)).isZero();

		Path other = this.directory.resolve("other.db");
		try (Connection connection = DriverManager.getConnection("jdbc:sqlite:" + other);
				Statement statement = connection.createStatement()) {
			statement.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
		}
		byte[] before = Files.readAllBytes(other);
		for (String command : new String[] { "status", "retry", "pause" }) {
			String[] args = command.equals("status") ? new String[] { command, "--db=" + other }
					: new String[] { command, command.equals("retry") ? "1" : "ok", "--db=" + other };
			run = Cli.run(args);
			assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
			assertThat(run.err()).contains("Not a queue database", "has no table jobqueue_schema_history");
		}
		assertThat(Files.readAllBytes(other)).isEqualTo(before);
		assertThat(this.directory.resolve("other.db-wal")).doesNotExist();
	}

}
