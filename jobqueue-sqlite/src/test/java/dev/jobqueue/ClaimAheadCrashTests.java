package dev.jobqueue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;
import dev.jobqueue.testing.WorkerProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker JVM SIGKILLed with a full claim-ahead buffer loses nothing: every job it held
 * waiting runs elsewhere, once, with the lost claim counted as an attempt (as for a
 * running job: the store cannot tell them apart), and no job of a type that is not
 * repeatable was left waiting to fail without having run.
 */
class ClaimAheadCrashTests {

	@TempDir
	Path dir;

	@Test
	void bufferedJobsOfAKilledWorkerRunElsewhereOnce() throws Exception {
		Path file = this.dir.resolve("queue.db");
		try (TestDatabase db = TestDatabase.create(file, "")) {
			DefaultJobQueue queue = new DefaultJobQueue(db.store(), db.admin(), WorkerHarness.CODEC,
					new HandlerRegistry(), Clock.systemUTC(), new EnqueueLimits(3, 1 << 20), null);
			List<Long> once = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				once.add(queue.enqueue("slow-once", i));
			}
			// On their last attempt, ahead of the others in claim order: never claimed
			// into the buffer, so the kill cannot fail them without a run.
			List<Long> lastAttempt = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				lastAttempt.add(queue.enqueue(JobRequest.of("slow", 100 + i).maxAttempts(1)));
			}
			List<Long> slow = new ArrayList<>();
			for (int i = 0; i < 12; i++) {
				slow.add(queue.enqueue("slow", i));
			}
			// Two slots and eight ahead: the two not-repeatable jobs take the free slots
			// and
			// start, eight repeatable ones wait in the buffer.
			Process victim = WorkerProcess.launch(file, 2, 1500, "block", this.dir.resolve("victim.log"), 8);
			await().atMost(Duration.ofSeconds(60))
				.until(() -> Files.exists(started(once.get(0))) && Files.exists(started(once.get(1)))
						&& db.count("SELECT count(*) FROM jobs WHERE status = 'running'") == 10);
			victim.destroyForcibly();
			assertThat(victim.waitFor(10, TimeUnit.SECONDS)).isTrue();
			assertThat(victim.exitValue()).isEqualTo(137);
			List<Long> buffered = slow.subList(0, 8);
			for (long id : buffered) {
				assertThat(started(id)).as("job %d waited in the buffer", id).doesNotExist();
			}

			JobWorker rescuer = WorkerHarness.onSystemClock(db)
				.handle(HandlerDefinition.of("slow", (payload, context) -> "done"))
				.handle(new HandlerDefinition("slow-once", (payload, context) -> "done", 0, null, 0, false, "test"))
				.concurrency(2)
				.pollInterval(Duration.ofMillis(100))
				.lease(Duration.ofMillis(1500))
				.shutdownTimeout(Duration.ofSeconds(5))
				.maxSnoozes(10)
				.workerDefaultLimits()
				.worker("rescuer", Executors.newFixedThreadPool(2));
			rescuer.start();
			await().atMost(Duration.ofSeconds(60))
				.until(() -> db.count("SELECT count(*) FROM jobs WHERE status IN ('succeeded', 'failed')") == 19);
			rescuer.stop();

			for (long id : buffered) {
				Job job = queue.find(id).orElseThrow();
				assertThat(job.status()).isEqualTo(JobStatus.SUCCEEDED);
				assertThat(job.attempts()).as("the lost claim counts, as the README says").isEqualTo(2);
				assertThat(db.column("SELECT outcome FROM job_attempts WHERE job_id = ? ORDER BY run", id))
					.containsExactly("LEASE_EXPIRED", "SUCCEEDED");
			}
			for (long id : slow.subList(8, 12)) {
				assertThat(queue.find(id).orElseThrow().attempts()).isEqualTo(1);
			}
			for (long id : once.subList(0, 2)) {
				Job job = queue.find(id).orElseThrow();
				assertThat(job.status()).isEqualTo(JobStatus.FAILED);
				assertThat(job.errorCode()).isEqualTo("LEASE_EXPIRED:NOT_REPEATABLE");
			}
			for (long id : lastAttempt) {
				Job job = queue.find(id).orElseThrow();
				assertThat(job.status()).as("job %d on its last attempt ran", id).isEqualTo(JobStatus.SUCCEEDED);
				assertThat(db.column("SELECT outcome FROM job_attempts WHERE job_id = ? ORDER BY run", id))
					.containsExactly("SUCCEEDED");
			}
			assertThat(db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'LEASE_EXPIRED' "
					+ "AND job_id IN (SELECT id FROM jobs WHERE max_attempts = 1)"))
				.isZero();
			assertThat(queue.find(once.get(2)).orElseThrow().status()).as("never claimed ahead by the victim")
				.isEqualTo(JobStatus.SUCCEEDED);
			assertThat(db.count("SELECT count(*) FROM job_attempts WHERE outcome = 'SUCCEEDED'")).isEqualTo(17);
			assertThat(db.count("SELECT count(*) FROM (SELECT job_id FROM job_attempts WHERE outcome = 'SUCCEEDED' "
					+ "GROUP BY job_id HAVING count(*) > 1)"))
				.isZero();
			assertThat(db.count("SELECT count(*) FROM job_attempts WHERE outcome IS NULL")).isZero();
		}
	}

	private Path started(long id) {
		return this.dir.resolve("started-" + id);
	}

}
