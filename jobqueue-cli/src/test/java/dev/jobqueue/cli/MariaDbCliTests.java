package dev.jobqueue.cli;

import org.junit.jupiter.api.Test;

import dev.jobqueue.mysql.testing.MariaDbServer;
import dev.jobqueue.mysql.testing.MariaDbTest;
import dev.jobqueue.mysql.testing.MysqlTestDatabase;
import dev.jobqueue.testing.StoreFixture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tool on a MariaDB database that an application's worker uses at the same time.
 */
@MariaDbTest
class MariaDbCliTests extends CliScenarios {

	@Override
	protected StoreFixture createQueue() {
		return MysqlTestDatabase.create();
	}

	@Override
	protected String target() {
		return "--url=" + ((MysqlTestDatabase) this.db).url();
	}

	@Override
	protected void writeNewerSchemaVersion() {
		this.db.execute("INSERT INTO jobqueue_schema_history (installed_rank, version, description, type, script, "
				+ "checksum, installed_by, installed_on, execution_time, success) VALUES (999, '999', 'from the "
				+ "future', 'SQL', 'V999__future.sql', 0, 'test', now(), 0, 1)");
	}

	@Test
	void migrateCreatesAQueueInAnEmptyDatabase() {
		String name = MysqlTestDatabase.createDatabase();
		try {
			String url = "--url=" + MariaDbServer.urlOf(name);
			Cli.Run status = Cli.run("status", url);
			assertThat(status.exitCode()).as(status.toString()).isEqualTo(3);
			assertThat(status.err()).contains("Not a queue database");
			assertThat(Cli.run("migrate", "--verify", url).exitCode()).isEqualTo(3);
			// Through the jar: its migrations are found in the store's jar on the class
			// path.
			Cli.Run migrate = Cli.jar("migrate", url);
			assertThat(migrate.exitCode()).as(migrate.toString()).isZero();
			assertThat(migrate.out()).contains("migrated from schema version none to");
			assertThat(Cli.run("migrate", "--verify", url).exitCode()).isZero();
			Cli.Run doctor = Cli.run("doctor", url);
			assertThat(doctor.exitCode()).as(doctor.toString()).isZero();
			assertThat(doctor.out()).contains("table", "jobs:");
		}
		finally {
			MysqlTestDatabase.dropDatabase(name);
		}
	}

	@Test
	void anUnreachableServerIsOneLineAndExitCode3() {
		Cli.Run run = Cli.run("status", "--url=jdbc:mariadb://127.0.0.1:1/nothing?user=root");
		assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
		assertThat(run.err().strip()).contains("cannot be reached").doesNotContain("\n");
	}

}
