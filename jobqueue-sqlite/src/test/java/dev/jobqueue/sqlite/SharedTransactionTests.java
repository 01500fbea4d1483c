package dev.jobqueue.sqlite;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteConfig;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.DefaultJobQueue;
import dev.jobqueue.core.EnqueueLimits;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.jdbc.spring.SpringTransactions;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.TestDatabase;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The queue on the application's own SQLite DataSource: queue writes join the caller's
 * Spring transaction. The pools here are set up as Spring Boot sets up
 * {@code spring.datasource.*}: Hikari, driver properties, auto-commit on, and the
 * driver's transaction mode as given.
 */
class SharedTransactionTests {

	private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

	@TempDir
	Path dir;

	private TestDatabase other;

	private HikariDataSource application;

	private final ConcurrentLinkedQueue<Long> cancelSignals = new ConcurrentLinkedQueue<>();

	private final AtomicInteger enqueueSignals = new AtomicInteger();

	@BeforeEach
	void createFile() {
		this.other = TestDatabase.create(this.dir);
	}

	@AfterEach
	void close() {
		if (this.application != null) {
			this.application.close();
		}
		this.other.close();
	}

	@Test
	void deferredTransactionThatReadBeforeAnotherConnectionCommittedFailsAsTransientWithRetryAdvice() {
		Shared shared = share(SQLiteConfig.TransactionMode.DEFERRED);
		assertThatExceptionOfType(PessimisticLockingFailureException.class)
			.isThrownBy(() -> shared.transactions.executeWithoutResult((status) -> {
				shared.jdbc.queryForObject("SELECT count(*) FROM jobs", Long.class);
				this.other.store().enqueue(List.of(job("other")), NOW, () -> {
				});
				shared.queue.enqueue("mine", "payload");
			}))
			.isInstanceOf(TransientDataAccessException.class)
			.withMessageContaining("retry the transaction")
			.withMessageContaining("SQLITE_BUSY_SNAPSHOT")
			.withMessageContaining("transaction_mode=IMMEDIATE");
		assertThat(this.other.count("SELECT count(*) FROM jobs WHERE type = 'mine'")).isZero();
	}

	@Test
	void immediateTransactionReadsThenEnqueuesWhileAnotherConnectionWaitsToCommit() throws Exception {
		Shared shared = share(SQLiteConfig.TransactionMode.IMMEDIATE);
		CompletableFuture<?> otherWrite = new CompletableFuture<>();
		long id = shared.transactions.execute((status) -> {
			shared.jdbc.queryForObject("SELECT count(*) FROM jobs", Long.class);
			CompletableFuture.runAsync(() -> this.other.store().enqueue(List.of(job("other")), NOW, () -> {
			})).whenComplete((result, failure) -> complete(otherWrite, failure));
			return shared.queue.enqueue("mine", "payload");
		});
		otherWrite.get();
		assertThat(this.other.admin().find(id)).hasValueSatisfying((job) -> assertThat(job.type()).isEqualTo("mine"));
		assertThat(this.other.count("SELECT count(*) FROM jobs WHERE type = 'other'")).isOne();
	}

	@Test
	void manyReadThenEnqueueTransactionsAgainstAConcurrentlyCommittingConnectionAllSucceedWhenImmediate() {
		Shared shared = share(SQLiteConfig.TransactionMode.IMMEDIATE);
		Outcome outcome = readThenEnqueue(shared, 1000, 0);
		assertThat(outcome.failures).isEmpty();
		assertThat(this.other.count("SELECT count(*) FROM jobs WHERE type = 'mine'")).isEqualTo(1000);
		assertThat(outcome.otherCommits).isPositive();
	}

	@Test
	void manyReadThenEnqueueTransactionsAgainstAConcurrentlyCommittingConnectionFailOnlyAsRetryableWhenDeferred() {
		Shared shared = share(SQLiteConfig.TransactionMode.DEFERRED);
		// Every 50th transaction waits, between its read and its write, for one more
		// commit of the other connection: the race happens at least that often, whatever
		// the scheduler does with the rest.
		Outcome outcome = readThenEnqueue(shared, 1000, 50);
		System.out.printf("DEFERRED: %d of 1000 read-then-enqueue transactions failed (%d commits of the other "
				+ "connection meanwhile)%n", outcome.failures.size(), outcome.otherCommits);
		assertThat(outcome.otherCommits).as("commits of the other connection meanwhile").isPositive();
		assertThat(outcome.failures).as("transactions that lost the race").hasSizeGreaterThanOrEqualTo(1000 / 50);
		assertThat(outcome.failures)
			.allSatisfy((failure) -> assertThat(failure).isInstanceOf(PessimisticLockingFailureException.class)
				.hasMessageContaining("retry the transaction"));
		assertThat(this.other.count("SELECT count(*) FROM jobs WHERE type = 'mine'"))
			.isEqualTo(1000 - outcome.failures.size());
	}

	@Test
	void cancelThenEnqueueInOneTransactionCommitsTogether() {
		Shared shared = share(SQLiteConfig.TransactionMode.IMMEDIATE);
		long first = shared.queue.enqueue("first", "payload");
		long second = shared.transactions.execute((status) -> {
			assertThat(shared.queue.cancel(first)).isTrue();
			return shared.queue.enqueue("second", "payload");
		});
		assertThat(this.other.admin().find(first).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(this.other.admin().find(second).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
	}

	@Test
	void everyQueueWriteInARolledBackTransactionIsRolledBackWithIt() {
		Shared shared = share(SQLiteConfig.TransactionMode.IMMEDIATE);
		long pending = shared.queue.enqueue("pending", "payload");
		long failed = shared.queue.enqueue("failed", "payload");
		this.other.execute("UPDATE jobs SET status = 'failed', finished_at = 1 WHERE id = ?", failed);
		shared.queue.pause("paused");
		this.enqueueSignals.set(0);
		shared.transactions.executeWithoutResult((status) -> {
			shared.queue.enqueue("rolled-back", "payload");
			assertThat(shared.queue.cancel(pending)).isTrue();
			assertThat(shared.queue.retry(failed)).isTrue();
			assertThat(shared.queue.pause("other")).isTrue();
			assertThat(shared.queue.resume("paused")).isTrue();
			status.setRollbackOnly();
		});
		assertThat(this.other.count("SELECT count(*) FROM jobs WHERE type = 'rolled-back'")).isZero();
		assertThat(this.other.admin().find(pending).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
		assertThat(this.other.admin().find(failed).orElseThrow().status()).isEqualTo(JobStatus.FAILED);
		assertThat(shared.queue.pausedTypes()).extracting("type").containsExactly("paused");
		assertThat(this.cancelSignals).isEmpty();
		assertThat(this.enqueueSignals).hasValue(0);
	}

	@Test
	void signalsOfJoinedWritesWaitForTheCommit() {
		Shared shared = share(SQLiteConfig.TransactionMode.IMMEDIATE);
		long id = shared.queue.enqueue("job", "payload");
		this.other.execute("UPDATE jobs SET status = 'running', runs = 1 WHERE id = ?", id);
		shared.transactions.executeWithoutResult((status) -> {
			assertThat(shared.queue.cancel(id)).isTrue();
			assertThat(this.cancelSignals).isEmpty();
		});
		assertThat(this.cancelSignals).containsExactly(id);
	}

	@Test
	void enqueueThenCancelInOneTransactionDoesNotWaitForItself() {
		Shared shared = share(SQLiteConfig.TransactionMode.IMMEDIATE);
		long first = shared.queue.enqueue("first", "payload");
		await().atMost(Duration.ofSeconds(10)).until(() -> shared.transactions.execute((status) -> {
			shared.queue.enqueue("second", "payload");
			return shared.queue.cancel(first);
		}));
		assertThat(this.other.admin().find(first).orElseThrow().status()).isEqualTo(JobStatus.CANCELLED);
	}

	@Test
	void startUpRefusesASharedPoolWhoseTransactionsBeginDeferred() {
		this.application = pool(SQLiteConfig.TransactionMode.DEFERRED, true);
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> new SqliteSchema(this.application, SqliteDialect.tables(""), true, "application")
				.initialize())
			.withMessageContaining("transactions begin DEFERRED")
			.withMessageContaining("transaction_mode=IMMEDIATE")
			.withMessageContaining("spring.datasource.hikari.data-source-properties.transaction_mode=IMMEDIATE");
	}

	@Test
	void startUpAcceptsTheQueuesOwnPoolWithDeferredTransactions() {
		this.application = pool(SQLiteConfig.TransactionMode.DEFERRED, true);
		new SqliteSchema(this.application, SqliteDialect.tables(""), false, "application").initialize();
	}

	@Test
	void startUpRefusesAPoolWithAutoCommitOff() {
		this.application = pool(SQLiteConfig.TransactionMode.IMMEDIATE, false);
		assertThatExceptionOfType(JobQueueException.class).isThrownBy(
				() -> new SqliteSchema(this.application, SqliteDialect.tables(""), true, "application").initialize())
			.withMessageContaining("auto-commit off")
			.withMessageContaining("spring.datasource.hikari.auto-commit=true");
	}

	/**
	 * {@code transactions} read-then-enqueue transactions while the other connection
	 * commits enqueues in a loop; every {@code raceEvery}th (0: none) waits between its
	 * read and its write until the other connection committed once more.
	 */
	private Outcome readThenEnqueue(Shared shared, int transactions, int raceEvery) {
		AtomicBoolean stop = new AtomicBoolean();
		AtomicInteger otherCommits = new AtomicInteger();
		CompletableFuture<Void> committer = CompletableFuture.runAsync(() -> {
			while (!stop.get()) {
				this.other.store().enqueue(List.of(job("other")), NOW, () -> {
				});
				otherCommits.incrementAndGet();
			}
		});
		List<RuntimeException> failures = new ArrayList<>();
		try {
			for (int i = 0; i < transactions; i++) {
				boolean race = raceEvery > 0 && i % raceEvery == 0;
				try {
					shared.transactions.executeWithoutResult((status) -> {
						shared.jdbc.queryForObject("SELECT count(*) FROM jobs WHERE status = 'pending'", Long.class);
						if (race) {
							int seen = otherCommits.get();
							await().atMost(Duration.ofSeconds(30)).until(() -> otherCommits.get() > seen);
						}
						shared.queue.enqueue("mine", "payload");
					});
				}
				catch (RuntimeException ex) {
					failures.add(ex);
				}
			}
		}
		finally {
			stop.set(true);
			committer.join();
		}
		return new Outcome(failures, otherCommits.get());
	}

	private record Outcome(List<RuntimeException> failures, int otherCommits) {
	}

	private Shared share(SQLiteConfig.TransactionMode mode) {
		this.application = pool(mode, true);
		SqliteDatabase database = new SqliteDatabase(this.application, "shared", Duration.ofSeconds(30),
				new SpringTransactions());
		SqliteJobStore store = new SqliteJobStore(database, SqliteDialect.tables(""));
		SqliteJobAdminStore admin = new SqliteJobAdminStore(database, SqliteDialect.tables(""));
		DefaultJobQueue queue = new DefaultJobQueue(store, admin, WorkerHarness.CODEC, new HandlerRegistry(),
				MutableClock.startingAt(NOW.toString()), new EnqueueLimits(3, 64 * 1024), null);
		queue.setSignals(new QueueSignals() {

			@Override
			public void jobsEnqueued() {
				SharedTransactionTests.this.enqueueSignals.incrementAndGet();
			}

			@Override
			public void cancelRequested(long jobId) {
				SharedTransactionTests.this.cancelSignals.add(jobId);
			}

		});
		return new Shared(queue, new TransactionTemplate(new DataSourceTransactionManager(this.application)),
				new JdbcTemplate(this.application));
	}

	private record Shared(DefaultJobQueue queue, TransactionTemplate transactions, JdbcTemplate jdbc) {
	}

	/**
	 * A pool as Spring Boot builds it from spring.datasource.* with driver properties.
	 */
	private HikariDataSource pool(SQLiteConfig.TransactionMode mode, boolean autoCommit) {
		SQLiteConfig config = SqliteDataSources.connectionConfig(Duration.ofSeconds(5), "NORMAL");
		config.setTransactionMode(mode);
		HikariConfig hikari = new HikariConfig();
		hikari.setJdbcUrl(this.other.url());
		hikari.setMaximumPoolSize(4);
		hikari.setAutoCommit(autoCommit);
		hikari.setDataSourceProperties(config.toProperties());
		return new HikariDataSource(hikari);
	}

	private static NewJob job(String type) {
		return new NewJob(type, "\"payload\"", 0, NOW, 3, null, null);
	}

	private static void complete(CompletableFuture<?> future, Throwable failure) {
		if (failure != null) {
			future.completeExceptionally(failure);
		}
		else {
			future.complete(null);
		}
	}

}
