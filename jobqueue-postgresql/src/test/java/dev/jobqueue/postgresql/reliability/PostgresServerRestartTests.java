package dev.jobqueue.postgresql.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.jackson.JacksonPayloadCodec;
import dev.jobqueue.postgresql.testing.PostgresServer;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;
import dev.jobqueue.testing.ChildJvm;
import dev.jobqueue.testing.HandlerRuns;
import dev.jobqueue.testing.QueueInvariants;
import dev.jobqueue.testing.torture.TortureWorker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A server restart mid-load: two worker JVMs burn down a backlog while the PostgreSQL
 * server is restarted under them ({@code pg_ctlcluster ... restart}). Their connections
 * die; they retry with backoff, reconnect by themselves (the listener too) and finish:
 * nothing lost, nothing succeeded twice, no attempt left open. The handlers' own records
 * ({@link HandlerRuns}) must agree: every job's body ran to its end, and a body ran to
 * its end more than once only where the restart lost a run's outcome and its lease ran
 * out (at most one such body per lease recovery).
 * <p>
 * It restarts the machine's own server ({@code pg_ctlcluster}, as root), so it runs in
 * CI's profile ({@code -Preliability}, which sets {@code jobqueue.test.restart-server})
 * and by hand with {@code ./mvnw -B -pl jobqueue-postgresql -am -Ppostgresql-restart
 * test}, never in a plain build. Whatever happens after the restart (a failure, an
 * exception), the server is started again and awaited before the test ends. Prints one
 * {@code RESTART-PG ...} line.
 */
@PostgresTest
@Tag("long")
@EnabledIfSystemProperty(named = "jobqueue.test.restart-server", matches = "true",
		disabledReason = "restarts the PostgreSQL server: runs with -Preliability (CI) or -Ppostgresql-restart")
class PostgresServerRestartTests {

	static final int JOBS = Integer.getInteger("restart.jobs", 10_000);

	static final String CLUSTER = "$(ls /etc/postgresql | head -1) main";

	@TempDir
	Path dir;

	@Test
	void workersCarryOnAfterTheServerRestartsAndLoseNothing() throws Exception {
		long started = System.nanoTime();
		Path marker = this.dir.resolve("enqueue-done");
		try (PostgresTestDatabase db = PostgresTestDatabase.create()) {
			DefaultJobQueue queue = new DefaultJobQueue(db.storage().jobs(), db.storage().admin(),
					new JacksonPayloadCodec(JsonMapper.builder().build()), new HandlerRegistry(), Clock.systemUTC(),
					new EnqueueLimits(10, 1 << 20), null);
			List<JobRequest> batch = new ArrayList<>();
			for (int i = 0; i < JOBS; i++) {
				batch.add((i % 10 == 0) ? JobRequest.of("slow", 20) : JobRequest.of("fast", i));
				if (batch.size() == 500) {
					queue.enqueueAll(batch);
					batch.clear();
				}
			}
			queue.enqueueAll(batch);
			Files.writeString(marker, "done");
			Path records = Files.createDirectory(this.dir.resolve("records"));
			List<ChildJvm> workers = List.of(launch(db, records, marker, 0), launch(db, records, marker, 1));
			await().atMost(Duration.ofMinutes(2))
				.until(() -> db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'") >= JOBS / 4);
			long before = db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'");
			long restartedAt;
			try {
				assertThat(pgCtlCluster("restart")).as("pg_ctlcluster restart exit code").isZero();
				restartedAt = System.nanoTime();
			}
			finally {
				// On every way out of the restart, the server runs again: other tests
				// (and
				// other builds on this machine) need it.
				ensureServerRuns();
			}
			await().atMost(Duration.ofMinutes(5))
				.pollInterval(Duration.ofMillis(500))
				.ignoreExceptions()
				.until(() -> db.count("SELECT count(*) FROM jobs WHERE status IN ('pending', 'running')") == 0);
			double drainSeconds = (System.nanoTime() - restartedAt) / 1e9;
			// A worker exits with 3 when its loop failed at some point: here, while the
			// server was away. That is the proof the restart hit it; any other code is
			// bad.
			int badExits = 0;
			int sawTheRestart = 0;
			for (ChildJvm worker : workers) {
				int exit = worker.waitForExit(Duration.ofSeconds(60));
				if (exit == 3) {
					sawTheRestart++;
				}
				else if (exit != 0) {
					System.err.println("worker " + worker.pid() + " exited with " + exit + ":\n" + worker.output());
					badExits++;
				}
			}
			long succeeded = db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'");
			long duplicated = db
				.count("SELECT count(*) FROM (SELECT job_id FROM job_attempts WHERE outcome = 'SUCCEEDED' "
						+ "GROUP BY job_id HAVING count(*) > 1) twice");
			long openAttempts = db.count("SELECT count(*) FROM job_attempts WHERE outcome IS NULL");
			long recovered = db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'LEASE_EXPIRED'");
			Map<Long, Integer> completed = HandlerRuns.read(records, "completed");
			Map<Long, Integer> bodiesStarted = HandlerRuns.read(records, "started");
			long withoutCompletedBody = db.column("SELECT id FROM jobs")
				.stream()
				.filter((id) -> !completed.containsKey(((Number) id).longValue()))
				.count();
			long bodiesCompletedTwice = completed.values().stream().mapToLong((runs) -> runs - 1L).sum();
			long bodiesCut = HandlerRuns.total(bodiesStarted) - HandlerRuns.total(completed);
			List<String> violations;
			try (Connection connection = db.dataSource().getConnection()) {
				violations = QueueInvariants.violations(connection, "");
			}
			String summary = String.format(Locale.ROOT,
					"RESTART-PG jobs=%d succeededBeforeRestart=%d succeeded=%d duplicated=%d openAttempts=%d "
							+ "leaseRecoveries=%d jobsWithoutACompletedBody=%d bodiesCompletedAgain=%d bodiesCut=%d "
							+ "workersThatSawTheRestart=%d badExits=%d invariantViolations=%d "
							+ "drainAfterRestartSeconds=%.1f seconds=%.0f",
					JOBS, before, succeeded, duplicated, openAttempts, recovered, withoutCompletedBody,
					bodiesCompletedTwice, bodiesCut, sawTheRestart, badExits, violations.size(), drainSeconds,
					(System.nanoTime() - started) / 1e9);
			System.out.println(summary);
			Files.writeString(Path.of("target", "restart-postgresql-summary.txt"), summary + System.lineSeparator());
			assertThat(before).isLessThan(JOBS);
			assertThat(succeeded).isEqualTo(JOBS);
			assertThat(duplicated).isZero();
			assertThat(withoutCompletedBody).as("jobs whose handler body never ran to its end (the handlers' records)")
				.isZero();
			assertThat(completed.keySet()).as("bodies recorded for jobs the database does not know").hasSize(JOBS);
			assertThat(bodiesCompletedTwice)
				.as("a body runs to its end again only when the restart lost its run's outcome and the lease ran out")
				.isLessThanOrEqualTo(recovered);
			assertThat(openAttempts).isZero();
			assertThat(violations).as("invariants").isEmpty();
			assertThat(badExits).as("worker exits other than 0 or 3").isZero();
			assertThat(sawTheRestart).as("workers whose loop failed while the server was away").isPositive();
		}
	}

	/** Runs {@code pg_ctlcluster <version> main <action>}; its exit code. */
	private static int pgCtlCluster(String action) throws Exception {
		Process process = new ProcessBuilder("sh", "-c",
				"pg_ctlcluster --skip-systemctl-redirect " + CLUSTER + " " + action)
			.inheritIO()
			.start();
		if (!process.waitFor(120, TimeUnit.SECONDS)) {
			process.destroyForcibly();
			return -1;
		}
		return process.exitValue();
	}

	/** Starts the server when it does not answer, and waits until it does. */
	@AfterAll
	static void ensureServerRuns() throws Exception {
		if (!answers()) {
			System.err.println("PostgreSQL does not answer after the restart test: starting it again");
			pgCtlCluster("start");
		}
		await().atMost(Duration.ofMinutes(2))
			.pollInterval(Duration.ofMillis(500))
			.until(PostgresServerRestartTests::answers);
	}

	private static boolean answers() {
		try (java.sql.Connection connection = PostgresServer.connectAdmin()) {
			return connection.isValid(5);
		}
		catch (java.sql.SQLException ex) {
			return false;
		}
	}

	private ChildJvm launch(PostgresTestDatabase db, Path records, Path marker, int index) {
		PostgresTortureTests.PostgresDatabaseOfItsOwn store = new PostgresTortureTests.PostgresDatabaseOfItsOwn();
		return ChildJvm.start(TortureWorker.class, this.dir.resolve("worker-" + index + ".log"),
				store.getClass().getName(), store.location(db), "restart-" + index, 8, 5000, 5000, records, marker);
	}

}
