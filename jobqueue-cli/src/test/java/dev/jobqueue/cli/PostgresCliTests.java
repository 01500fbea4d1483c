package dev.jobqueue.cli;

import org.junit.jupiter.api.Test;

import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;
import dev.jobqueue.testing.StoreFixture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tool on a PostgreSQL database that an application's worker uses at the same time.
 */
@PostgresTest
class PostgresCliTests extends CliScenarios {

	@Override
	protected StoreFixture createQueue() {
		return PostgresTestDatabase.create();
	}

	@Override
	protected String target() {
		return "--url=" + ((PostgresTestDatabase) this.db).url();
	}

	@Override
	protected void writeNewerSchemaVersion() {
		this.db.execute("INSERT INTO jobqueue_schema_history (installed_rank, version, description, type, script, "
				+ "checksum, installed_by, installed_on, execution_time, success) VALUES (999, '999', 'from the "
				+ "future', 'SQL', 'V999__future.sql', 0, 'test', now(), 0, true)");
	}

	@Test
	void migrateCreatesAQueueInAnEmptyDatabase() {
		String name = PostgresTestDatabase.createDatabase();
		try {
			String url = "--url=" + PostgresServer.urlOf(name);
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
			assertThat(doctor.out()).contains("table", "jobs:", "dead");
		}
		finally {
			PostgresTestDatabase.dropDatabase(name);
		}
	}

	@Test
	void anUnreachableServerIsOneLineAndExitCode3() {
		Cli.Run run = Cli.jar("status", "--url=jdbc:postgresql://127.0.0.1:1/nothing?user=postgres");
		assertThat(run.exitCode()).as(run.toString()).isEqualTo(3);
		assertThat(run.err().strip()).contains("cannot be reached").doesNotContain("\n");
	}

}
