package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.QueueInsights.SnapshotSettings;
import dev.jobqueue.jdbc.CallerTransactions;
import dev.jobqueue.jdbc.SqlWork;
import dev.jobqueue.testing.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Jobs enqueued inside a transaction on another database are held until it ends
 * ({@link HeldEnqueue}); when it rolls back they are deleted, and those that went in
 * finished (or were cancelled meanwhile) leave the counts of finished jobs with them.
 */
class HeldEnqueueCountsTests {

	private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

	private static final SnapshotSettings SETTINGS = new SnapshotSettings(Duration.ofMinutes(15), 5,
			Duration.ofMinutes(3), 10);

	@TempDir
	Path dir;

	@Test
	void heldJobsDeletedOnRollbackLeaveTheFinishedCounts() {
		OtherTransaction transaction = new OtherTransaction();
		try (TestDatabase db = TestDatabase.openShared(this.dir.resolve("queue.db"), transaction, 2)) {
			transaction.active = false;
			long failed = db.store().enqueue(List.of(job("extract", List.of())), NOW, () -> {
			}).get(0);
			ClaimedJob run = db.store()
				.claim(new ClaimRequest("w1", 1, Set.of("extract"), Map.of(), Set.of(), NOW.plusSeconds(30)), NOW)
				.get(0);
			assertThat(db.store().complete(List.of(Completion.failed(run, "DEPENDENCY:API", "no")), "w1", NOW))
				.containsExactly(true);

			transaction.active = true;
			List<Long> held = db.store()
				.enqueue(List.of(job("load", List.of(failed)), job("load", List.of()), job("report", List.of())), NOW,
						() -> {
						});
			assertThat(db.admin().cancel(held.get(1), NOW)).isTrue();
			assertThat(counts(db)).isEqualTo(Map.of("extract", Map.of(JobStatus.FAILED, 1L), "load",
					Map.of(JobStatus.CANCELLED, 2L), "report", Map.of(JobStatus.PENDING, 1L)));

			transaction.end(CallerTransactions.Outcome.ROLLED_BACK);

			assertThat(db.count("SELECT count(*) FROM jobs")).isOne();
			assertThat(counts(db)).isEqualTo(Map.of("extract", Map.of(JobStatus.FAILED, 1L)));
		}
	}

	private static NewJob job(String type, List<Long> after) {
		return new NewJob(type, "{}", 0, NOW, 3, null, null, after, List.of(), DependencyPolicy.CANCEL, null);
	}

	private static Map<String, Map<JobStatus, Long>> counts(TestDatabase db) {
		return db.insights().snapshot(NOW, SETTINGS).counts();
	}

	/**
	 * A transaction of the application's on another database, which the test ends.
	 */
	private static final class OtherTransaction implements CallerTransactions {

		private final List<Consumer<Outcome>> callbacks = new ArrayList<>();

		private boolean active;

		void end(Outcome outcome) {
			this.active = false;
			this.callbacks.forEach((callback) -> callback.accept(outcome));
		}

		@Override
		public boolean joins(DataSource dataSource) {
			return false;
		}

		@Override
		public <T> T runJoined(DataSource dataSource, SqlWork<T> work) {
			throw new IllegalStateException("Nothing to join");
		}

		@Override
		public boolean inOtherTransaction(DataSource dataSource) {
			return this.active;
		}

		@Override
		public void afterCommit(Runnable action) {
			action.run();
		}

		@Override
		public void afterCompletion(Consumer<Outcome> action) {
			this.callbacks.add(action);
		}

		@Override
		public RuntimeException lockConflict(String message, SQLException cause, boolean staleSnapshot) {
			return new IllegalStateException(message, cause);
		}

	}

}
