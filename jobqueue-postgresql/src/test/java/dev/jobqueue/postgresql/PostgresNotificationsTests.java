package dev.jobqueue.postgresql;

import java.time.Duration;
import java.time.Instant;
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
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two stores on one database, as two processes would be: LISTEN/NOTIFY carries enqueues
 * and cancels across.
 */
@PostgresTest
class PostgresNotificationsTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	private PostgresTestDatabase db;

	private HikariDataSource otherPool;

	private PostgresStorage other;

	private final Heard heardByOther = new Heard();

	private final Heard heardBySelf = new Heard();

	@BeforeEach
	void twoProcesses() {
		this.db = PostgresTestDatabase.create();
		this.db.storage().signals(this.heardBySelf);
		this.otherPool = PostgresDataSourcesForTests.pool(this.db.url());
		this.other = new PostgresStorage(new PostgresDatabase(this.otherPool, this.db.url()),
				this.db.storage().tables());
		this.other.signals(this.heardByOther);
		this.other.initializeSchema();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.other.notifications().listening() && this.db.storage().notifications().listening());
		this.heardBySelf.enqueued.set(0);
		this.heardByOther.enqueued.set(0);
	}

	@AfterEach
	void close() {
		this.other.close();
		this.otherPool.close();
		this.db.close();
	}

	@Test
	void anEnqueueWakesTheOtherProcessOnCommitAndNotItself() {
		Object token = this.other.jobs().changeToken();
		assertThat(token).isNotNull();
		this.db.storage().jobs().enqueue(List.of(job()), NOW, () -> {
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> this.heardByOther.enqueued.get() == 1);
		assertThat(this.other.jobs().changeToken()).isNotEqualTo(token);
		assertThat(this.heardBySelf.enqueued.get()).isZero();
	}

	@Test
	void aCancelOfARunningJobReachesTheProcessThatRunsIt() {
		long id = this.db.storage().jobs().enqueue(List.of(job()), NOW, () -> {
		}).get(0);
		this.other.jobs().claim(new ClaimRequest("w", 1, Set.of("a"), Map.of(), Set.of(), NOW.plusSeconds(30)), NOW);
		assertThat(this.db.storage().admin().cancel(id, NOW)).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.heardByOther.cancelled.contains(id));
	}

	@Test
	void aListenerWhoseConnectionIsCutReconnectsAndHearsAgain() {
		// A listening session's last statement is its probe (waiting for notifications
		// sends no query).
		assertThat(this.db.count("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
				+ "WHERE datname = current_database() AND query LIKE 'NOTIFY % ''probe/%'"))
			.isEqualTo(2);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> this.heardByOther.enqueued.get() >= 1 && this.other.notifications().listening());
		int before = this.heardByOther.enqueued.get();
		this.db.storage().jobs().enqueue(List.of(job()), NOW, () -> {
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> this.heardByOther.enqueued.get() > before);
	}

	@Test
	void withoutNotificationsTheChangeTokenIsNullSoWorkersPoll() {
		this.other.close();
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.other.notifications().listening());
		assertThat(this.other.jobs().changeToken()).isNull();
	}

	@Test
	void aRetryWakesTheOtherProcessOnCommit() {
		long id = enqueue(List.of(job())).get(0);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.heardByOther.enqueued.get() == 1);
		assertThat(this.db.storage().admin().cancel(id, NOW)).isTrue();

		assertThat(this.db.storage().admin().retry(id, NOW)).isTrue();

		await().atMost(Duration.ofSeconds(10)).until(() -> this.heardByOther.enqueued.get() == 2);
	}

	@Test
	void aCancelOfAChainReachesEveryRunningStep() {
		NewJob child = new NewJob("child", "{}", 0, NOW, 3, null, null).withChainIndex(0);
		List<Long> ids = enqueue(List.of(child, child, job().withAfterInBatch(List.of(0, 1)).withChainIndex(1)));
		assertThat(this.other.jobs()
			.claim(new ClaimRequest("w", 2, Set.of("child"), Map.of(), Set.of(), NOW.plusSeconds(30)), NOW)).hasSize(2);

		assertThat(this.db.storage().admin().cancelChain(ids.get(0), NOW)).containsExactlyElementsOf(ids);

		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.heardByOther.cancelled.containsAll(List.of(ids.get(0), ids.get(1))));
		assertThat(this.heardByOther.cancelled).doesNotContain(ids.get(2));
	}

	private List<Long> enqueue(List<NewJob> jobs) {
		return this.db.storage().jobs().enqueue(jobs, NOW, () -> {
		});
	}

	private static NewJob job() {
		return new NewJob("a", "{}", 0, NOW, 3, null, null);
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
