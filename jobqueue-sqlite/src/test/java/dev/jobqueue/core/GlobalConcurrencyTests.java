package dev.jobqueue.core;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobRequest;
import dev.jobqueue.testing.ChildJvm;
import dev.jobqueue.testing.GlobalCapWorkerProcess;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.SharedCounter;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;
import dev.jobqueue.testing.LongTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The global cap is checked inside the claim transaction, so it must hold across real
 * processes: three JVMs with eight worker threads each run a type capped at two, and a
 * counter the handlers share through a file never goes above two.
 */
@LongTest
class GlobalConcurrencyTests {

	static final int JOBS = 40;

	@TempDir
	Path dir;

	@Test
	void aGlobalCapOfTwoHoldsAcrossThreeProcessesWithEightWorkersEach() throws Exception {
		String counters = this.dir.resolve("counter-").toString();
		Path counter = Path.of(counters + GlobalCapWorkerProcess.TYPE);
		Path spreadCounter = Path.of(counters + GlobalCapWorkerProcess.SPREAD_TYPE);
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			List<Process> processes = new ArrayList<>();
			try {
				for (int i = 1; i <= 3; i++) {
					processes.add(launch(db.file(), counters, "process-" + i));
				}
				await().atMost(Duration.ofSeconds(30)).until(() -> db.count("SELECT count(*) FROM job_workers") == 3);

				WorkerHarness enqueuer = new WorkerHarness(db, new MutableClock(Instant.now()));
				List<JobRequest> requests = new ArrayList<>();
				for (int i = 0; i < JOBS; i++) {
					requests.add(JobRequest.of(GlobalCapWorkerProcess.TYPE, i));
					requests.add(JobRequest.of(GlobalCapWorkerProcess.SPREAD_TYPE, i));
				}
				enqueuer.queue.enqueueAll(requests);

				for (Process process : processes) {
					assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("worker process ended").isTrue();
					assertThat(process.exitValue()).isZero();
				}
			}
			finally {
				processes.forEach(Process::destroyForcibly);
			}
			assertThat(db.count("SELECT count(*) FROM jobs WHERE status = 'succeeded'")).isEqualTo(2 * JOBS);
			System.out.printf(
					"Global cap %d, 3 processes x 8 workers: most at once %d (no cap per process, jobs "
							+ "run by %d processes), %d (1 per process, jobs run by %d processes)%n",
					GlobalCapWorkerProcess.CAP, SharedCounter.max(counter),
					processesThatRan(db, GlobalCapWorkerProcess.TYPE), SharedCounter.max(spreadCounter),
					processesThatRan(db, GlobalCapWorkerProcess.SPREAD_TYPE));
			// Never above the cap, and the cap is reached: with one per process, that
			// takes two processes at once.
			assertThat(SharedCounter.max(counter)).isEqualTo(GlobalCapWorkerProcess.CAP);
			assertThat(SharedCounter.max(spreadCounter)).isEqualTo(GlobalCapWorkerProcess.CAP);
			assertThat(SharedCounter.current(counter)).isZero();
			assertThat(processesThatRan(db, GlobalCapWorkerProcess.SPREAD_TYPE)).isGreaterThan(1);
		}
	}

	private static long processesThatRan(TestDatabase db, String type) {
		return db.count("SELECT count(DISTINCT a.worker_id) FROM job_attempts a JOIN jobs j ON j.id = a.job_id "
				+ "WHERE j.type = ?", type);
	}

	private Process launch(Path database, String counters, String workerId) throws Exception {
		return ChildJvm
			.start(GlobalCapWorkerProcess.class, this.dir.resolve(workerId + ".log"), database, counters, workerId,
					2 * JOBS)
			.process();
	}

}
