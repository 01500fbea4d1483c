package dev.jobqueue.sqlite;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.JobRequest;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.RetentionPolicy;
import dev.jobqueue.core.retention.RetentionSettings;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;

/** Retention deletes chains whole, never half of one (docs/chains.md). */
class SqliteChainRetentionTests {

	@TempDir
	java.nio.file.Path dir;

	MutableClock clock = MutableClock.startingAt("2026-06-01T00:00:00Z");

	@Test
	void aChainGoesWholeOnceEveryStepFinishedAndIsOldEnoughAndAWaitedForJobStays() {
		try (TestDatabase db = TestDatabase.create(this.dir)) {
			WorkerHarness harness = new WorkerHarness(db, this.clock);
			harness.handle(HandlerDefinition.of("upload", (payload, context) -> {
				context.continueWith("scan", payload);
				return null;
			})).handle(HandlerDefinition.of("scan", (payload, context) -> {
				context.continueWith("publish", payload);
				return null;
			}));
			long upload = harness.queue.enqueue("upload", "file");
			long plain = harness.queue.enqueue("upload-free", "x");
			JobWorker worker = harness.directWorker("w1");
			worker.pollOnce();
			worker.pollOnce();
			// "publish" has no handler yet: the chain is unfinished, its first steps are
			// old.
			db.execute("UPDATE jobs SET status = 'succeeded', finished_at = ? WHERE id = ?",
					this.clock.instant().toEpochMilli(), plain);
			long waitsForPlain = harness.queue.enqueue(JobRequest.of("later", 1).after(plain));
			this.clock.advance(Duration.ofDays(60));
			RetentionCleaner cleaner = new RetentionCleaner(
					new SqliteRetentionStore(db.database(), SqliteDialect.tables("")),
					RetentionSettings.of(
							RetentionPolicy.of(Duration.ofDays(30), Duration.ofDays(30), Duration.ofDays(30), Map.of()),
							100),
					this.clock, "me", () -> true);

			cleaner.purgeOnce();
			assertThat(db.count("SELECT count(*) FROM jobs WHERE chain_id = ?", upload)).isEqualTo(3);
			assertThat(db.count("SELECT count(*) FROM jobs WHERE id = ?", plain))
				.as("a finished job that an unfinished job waits for stays")
				.isEqualTo(1);
			assertThat(db.count("SELECT count(*) FROM jobs WHERE id = ?", waitsForPlain)).isEqualTo(1);

			db.execute("UPDATE jobs SET status = 'succeeded', finished_at = ? WHERE type = 'publish'",
					this.clock.instant().toEpochMilli());
			this.clock.advance(Duration.ofDays(10));
			cleaner.purgeOnce();
			assertThat(db.count("SELECT count(*) FROM jobs WHERE chain_id = ?", upload))
				.as("the last step is too young: the chain stays whole")
				.isEqualTo(3);

			this.clock.advance(Duration.ofDays(30));
			cleaner.purgeOnce();
			assertThat(db.count("SELECT count(*) FROM jobs WHERE chain_id = ?", upload)).isZero();
			assertThat(db.count("SELECT count(*) FROM job_events WHERE job_id = ?", upload)).isZero();
		}
	}

}
