package dev.jobqueue.cli;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.jobqueue.JobRequest;
import dev.jobqueue.mysql.testing.MariaDbTest;
import dev.jobqueue.mysql.testing.MysqlTestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code doctor} and {@code status} on a real MariaDB database: the server named as it
 * is, and the tables' rows as InnoDB estimates them.
 */
@MariaDbTest
class MysqlDoctorTests {

	private MysqlTestDatabase db;

	@BeforeEach
	void createQueue() {
		this.db = MysqlTestDatabase.create();
	}

	@AfterEach
	void dropQueue() {
		this.db.close();
	}

	@Test
	void doctorPrintsTheRowsOfTheTablesAsTheServerEstimatesThem() {
		WorkerHarness harness = WorkerHarness.onSystemClock(this.db);
		for (int i = 0; i < 25; i++) {
			harness.queue.enqueue(JobRequest.of("report", "{\"n\":" + i + "}"));
		}
		// InnoDB's estimate follows its persistent statistics, refreshed in the
		// background; ANALYZE brings them up to date now.
		this.db.execute("ANALYZE TABLE jobqueue_jobs");
		Cli.Run doctor = Cli.run("doctor", "--url=" + this.db.url());
		assertThat(doctor.exitCode()).as(doctor.toString()).isEqualTo(1);
		assertThat(doctor.out()).containsPattern("table +jobs: .*, about 25 rows \\(the server's estimate\\)")
			.doesNotContain("live rows")
			.doesNotContain(" dead");
	}

	@Test
	void doctorAndStatusNameTheServerAsItIs() {
		String version = (String) this.db.column("SELECT VERSION()").get(0);
		assertThat(version).contains("MariaDB");
		String release = version.substring(0, version.indexOf('-'));
		for (String command : List.of("doctor", "status")) {
			Cli.Run run = Cli.run(command, "--url=" + this.db.url());
			assertThat(run.out()).as(run.toString())
				.contains("MariaDB " + release + " jdbc:mariadb://")
				.doesNotContain("MySQL");
		}
	}

}
