package dev.jobqueue.postgresql;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What an operator does in one process reaches the others on commit: a retry wakes their
 * workers, a cancel of a chain reaches every process running one of its steps.
 */
@PostgresTest
class PostgresAdminNotificationsTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	private PostgresTestDatabase db;

	private HikariDataSource otherPool;

	private PostgresStorage other;

	private final Heard heardByOther = new Heard();

	@BeforeEach
	void twoProcesses() {
		this.db = PostgresTestDatabase.create();
		this.otherPool = PostgresDataSourcesForTests.pool(this.db.url());
		this.other = new PostgresStorage(new PostgresDatabase(this.otherPool, this.db.url()),
				this.db.storage().tables());
		this.other.signals(this.heardByOther);
		this.other.initializeSchema();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.other.notifications().listening() && this.db.storage().notifications().listening());
	}

	@AfterEach
	void close() {
		this.other.close();
		this.otherPool.close();
		this.db.close();
	}

	@Test
	void aRetryWakesTheOtherProcessOnCommit() {
		int before = this.heardByOther.enqueued.get();
		long id = enqueue(List.of(job("a"))).get(0);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.heardByOther.enqueued.get() == before + 1);
		assertThat(this.db.storage().admin().cancel(id, NOW)).isTrue();

		assertThat(this.db.storage().admin().retry(id, NOW)).isTrue();

		await().atMost(Duration.ofSeconds(10)).until(() -> this.heardByOther.enqueued.get() == before + 2);
	}

	@Test
	void aCancelOfAChainReachesEveryRunningStep() {
		List<NewJob> fanOut = new ArrayList<>(List.of(job("child").withChainIndex(0), job("child").withChainIndex(0)));
		fanOut.add(job("join").withAfterInBatch(List.of(0, 1)).withChainIndex(1));
		List<Long> ids = enqueue(fanOut);
		List<ClaimedJob> running = this.other.jobs()
			.claim(new ClaimRequest("w", 2, Set.of("child"), Map.of(), Set.of(), NOW.plusSeconds(30)), NOW);
		assertThat(running).hasSize(2);

		assertThat(this.db.storage().admin().cancelChain(ids.get(0), NOW)).containsExactlyElementsOf(ids);

		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.heardByOther.cancelled.containsAll(List.of(ids.get(0), ids.get(1))));
		assertThat(this.heardByOther.cancelled).doesNotContain(ids.get(2));
	}

	private List<Long> enqueue(List<NewJob> jobs) {
		return this.db.storage().jobs().enqueue(jobs, NOW, () -> {
		});
	}

	private static NewJob job(String type) {
		return new NewJob(type, "{}", 0, NOW, 3, null, null);
	}

	private static final class Heard implements QueueSignals {

		final AtomicInteger enqueued = new AtomicInteger();

		final List<Long> cancelled = new CopyOnWriteArrayList<>();

		@Override
		public void jobsEnqueued() {
			this.enqueued.incrementAndGet();
		}

		@Override
		public void cancelRequested(long jobId) {
			this.cancelled.add(jobId);
		}

	}

}
