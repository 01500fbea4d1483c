package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.Job;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.JobStep;
import dev.jobqueue.RetryOptions;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.QueueInsights.JobDetail;
import dev.jobqueue.core.store.QueueInsights.Step;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.StoreTests;
import dev.jobqueue.testing.torture.TortureStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Durable steps ({@link JobContext#step}) on every store: a step's work runs once per job
 * and later runs get its recorded result; the record is fenced on the run, so a run that
 * lost its lease records nothing and never shadows the newer run's results; bad names and
 * results fail the job naming the step; steps go with their job at retention, and a retry
 * keeps them unless told to forget them.
 */
public abstract class StepsTests extends StoreTests {

	private final AtomicInteger charges = new AtomicInteger();

	private final AtomicInteger receipts = new AtomicInteger();

	private final AtomicInteger ledgerWrites = new AtomicInteger();

	/** Fails the handler after its steps while set. */
	private volatile boolean failAfterSteps = true;

	/**
	 * Card → receipt → ledger: three steps, then a failure while {@link #failAfterSteps}.
	 */
	private Object order(JobContext context) {
		String receipt = context.step("charge", String.class, () -> "receipt-" + this.charges.incrementAndGet());
		context.step("send-receipt", () -> this.receipts.incrementAndGet());
		Integer balance = context.step("ledger", Integer.class, () -> 100 + this.ledgerWrites.incrementAndGet());
		if (this.failAfterSteps) {
			throw new IllegalStateException("the warehouse is down");
		}
		return receipt + " balance " + balance;
	}

	private JobWorker worker() {
		return this.harness.directWorker("w1");
	}

	private Job job(long id) {
		return this.harness.queue.find(id).orElseThrow();
	}

	private JobDetail detail(long id) {
		return this.db.insights().job(id, 100).orElseThrow();
	}

	/**
	 * The database of {@link #db} as an application that shares it with the queue opens
	 * it: the queue's writes join the application's transactions, in which transactional
	 * steps run. Closed after the test.
	 */
	protected abstract TortureStore.SharedDatabase shareWithApplication(StoreFixture db);

	private TortureStore.SharedDatabase shared;

	/**
	 * A worker on the application's DataSource, whose transactional steps run in the
	 * application's transactions through {@code transactions} (the shared database's own
	 * when {@code null}); the application's table {@code step_ledger} is created.
	 */
	private JobWorker applicationWorker(UnaryOperator<StepTransactions> transactions) {
		this.shared = shareWithApplication(this.db);
		this.db.execute("CREATE TABLE step_ledger (job_id BIGINT NOT NULL, step VARCHAR(100) NOT NULL)");
		this.harness.workerStore(this.shared.db().store());
		JobWorker worker = worker();
		worker.setStepTransactions(transactions.apply(this.shared.stepTransactions()));
		return worker;
	}

	@AfterEach
	void closeSharedDatabase() {
		if (this.shared != null) {
			this.shared.close();
		}
	}

	private long ledgerRows(long id) {
		return this.db.count("SELECT count(*) FROM step_ledger WHERE job_id = ?", id);
	}

	private static ClaimRequest claim(String workerId, Instant now) {
		return new ClaimRequest(workerId, 1, Set.of("order"), Map.of(), Set.of(), now.plusSeconds(30));
	}

	@Test
	void aStepRunsOnceAndLaterRunsGetItsRecordedResult() {
		List<String> done = new ArrayList<>();
		this.harness.listener(new WorkerListener() {
			@Override
			public void stepDone(ClaimedJob job, String step, boolean replayed) {
				done.add(step + (replayed ? " replayed" : " ran"));
			}
		});
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> order(context)));
		Instant start = this.clock.instant();
		long id = this.harness.queue.enqueue("order", 7);

		assertThat(worker().pollOnce()).isOne();

		assertThat(job(id).status()).isEqualTo(JobStatus.PENDING);
		assertThat(this.db.store().steps(id)).containsExactly(
				new JobStep("charge", 1, "\"receipt-1\"", 1, 1, start, start),
				new JobStep("send-receipt", 2, null, 1, 1, start, start),
				new JobStep("ledger", 3, "101", 1, 1, start, start));

		this.failAfterSteps = false;
		this.clock.advance(Duration.ofSeconds(11));
		assertThat(worker().pollOnce()).isOne();

		assertThat(job(id).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job(id).result()).isEqualTo("\"receipt-1 balance 101\"");
		assertThat(this.charges).hasValue(1);
		assertThat(this.receipts).hasValue(1);
		assertThat(this.ledgerWrites).hasValue(1);
		assertThat(done).containsExactly("charge ran", "send-receipt ran", "ledger ran", "charge replayed",
				"send-receipt replayed", "ledger replayed");
		assertThat(detail(id).steps())
			.extracting(Step::name, (step) -> (step.result() != null) ? step.result().preview() : null, Step::run)
			.containsExactly(tuple("charge", "\"receipt-1\"", 1), tuple("send-receipt", null, 1),
					tuple("ledger", "101", 1));
	}

	@Test
	void aStepWithoutAResultIsRecordedWithoutOneAndANullResultReplaysAsNull() {
		AtomicInteger calls = new AtomicInteger();
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			context.step("notify", calls::incrementAndGet);
			String nothing = context.step("lookup", String.class, () -> {
				calls.incrementAndGet();
				return null;
			});
			if (context.attempt() == 1) {
				throw new IllegalStateException("again");
			}
			return nothing;
		}));
		long id = this.harness.queue.enqueue("order", 1);
		worker().pollOnce();
		this.clock.advance(Duration.ofSeconds(11));
		worker().pollOnce();

		assertThat(job(id).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(calls).hasValue(2);
		assertThat(this.db.store().steps(id)).extracting(JobStep::name, JobStep::result)
			.containsExactly(tuple("notify", null), tuple("lookup", null));
	}

	@Test
	void aRunThatLostItsLeaseRecordsNothingAndTheNewerRunsResultsStand() {
		AtomicReference<ClaimedJob> newer = new AtomicReference<>();
		AtomicReference<RuntimeException> refused = new AtomicReference<>();
		AtomicInteger staleWork = new AtomicInteger();
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			// The lease runs out while the handler works; recovery takes the job back,
			// another worker claims it and records its first step before this run
			// records anything.
			this.clock.advance(Duration.ofMinutes(1));
			Instant now = this.clock.instant();
			this.db.store().recoverExpiredLeases(now, 10);
			ClaimedJob next = this.db.store().claim(claim("w2", now), now).get(0);
			newer.set(next);
			assertThat(this.db.store()
				.recordStep(new RunningJobRef(next.id(), next.run()),
						new JobStep("charge", 1, "\"newer\"", next.run(), next.attempt(), now, now), false))
				.isTrue();
			try {
				context.step("ledger", String.class, () -> "stale-" + staleWork.incrementAndGet());
			}
			catch (RuntimeException ex) {
				refused.set(ex);
				throw ex;
			}
			return "stale";
		}));
		long id = this.harness.queue.enqueue("order", 1);

		worker().pollOnce();

		assertThat(staleWork).as("the stale run's work ran: at least once").hasValue(1);
		assertThat(refused.get()).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("Step 'ledger' of job " + id)
			.hasMessageContaining("no longer holds the job");
		Job job = job(id);
		assertThat(job.status()).as("the stale run's outcome is rejected too").isEqualTo(JobStatus.RUNNING);
		assertThat(job.workerId()).isEqualTo("w2");
		assertThat(this.db.store().steps(id)).extracting(JobStep::name, JobStep::result, JobStep::run)
			.containsExactly(tuple("charge", "\"newer\"", 2));

		Instant later = this.clock.instant();
		RunningJobRef stale = new RunningJobRef(id, 1);
		assertThat(this.db.store().recordStep(stale, new JobStep("charge", 1, "\"stale\"", 1, 1, later, later), false))
			.isFalse();
		assertThat(this.db.store().recordStep(stale, new JobStep("audit", 2, "\"stale\"", 1, 1, later, later), false))
			.isFalse();
		assertThat(this.db.store().steps(id)).extracting(JobStep::result).containsExactly("\"newer\"");
	}

	@Test
	void aFinishedRunRecordsNoStep() {
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> null));
		long id = this.harness.queue.enqueue("order", 1);
		worker().pollOnce();
		Instant now = this.clock.instant();

		assertThat(this.db.store()
			.recordStep(new RunningJobRef(id, 1), new JobStep("late", 1, null, 1, 1, now, now), false)).isFalse();
		assertThat(this.db.store().steps(id)).isEmpty();
	}

	@Test
	void aNameUsedTwiceInOneRunFailsTheJobNamingTheStep() {
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			for (int i = 0; i < 2; i++) {
				context.step("charge", String.class, () -> "receipt-" + this.charges.incrementAndGet());
			}
			return null;
		}));
		long id = this.harness.queue.enqueue("order", 1);

		worker().pollOnce();

		assertFailed(id, ErrorCodes.STEP_NAME, "Step 'charge' of job " + id + " (order) was called twice in one run");
		assertThat(this.charges).hasValue(1);
	}

	@Test
	void aBlankNameOrOneOverTheBoundFailsTheJob() {
		String longName = "x".repeat(JobStep.MAX_NAME_LENGTH + 1);
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			context.step("1".equals(payload) ? longName : " ", () -> this.charges.incrementAndGet());
			return null;
		}));
		long tooLong = this.harness.queue.enqueue(JobRequest.of("order", 1));
		long blank = this.harness.queue.enqueue(JobRequest.of("order", 2));

		worker().pollOnce();

		assertFailed(tooLong, ErrorCodes.STEP_NAME, "has 101 characters, more than 100");
		assertFailed(blank, ErrorCodes.STEP_NAME, "has no name");
		assertThat(this.charges).hasValue(0);
		assertThat(this.db.count("SELECT count(*) FROM job_steps")).isZero();
	}

	@Test
	void aResultTheCodecCannotWriteFailsTheStepWhenItRuns() {
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			context.step("opaque", Unwritable.class, Unwritable::new);
			return null;
		}));
		long id = this.harness.queue.enqueue("order", 1);

		worker().pollOnce();

		assertFailed(id, ErrorCodes.STEP_RESULT,
				"Step 'opaque' of job " + id + " (order) failed: its result cannot be " + "written as JSON");
		assertThat(this.db.store().steps(id)).isEmpty();
	}

	@Test
	void aResultTheCodecCannotReadBackFailsTheStepWhenItRuns() {
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			context.step("token", WriteOnly.class, () -> WriteOnly.of("t-1"));
			return null;
		}));
		long id = this.harness.queue.enqueue("order", 1);

		worker().pollOnce();

		assertFailed(id, ErrorCodes.STEP_RESULT, "Step 'token' of job " + id + " (order) failed: its result cannot be "
				+ "read back as " + WriteOnly.class.getName());
		assertThat(this.db.store().steps(id)).isEmpty();
	}

	@Test
	void aRecordedResultThatNoLongerReadsAsTheStepsTypeFailsTheJobNamingTheStep() {
		long id = this.harness.queue.enqueue("order", 1);
		AtomicInteger calls = new AtomicInteger();
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			if (calls.incrementAndGet() == 1) {
				context.step("charge", String.class, () -> "receipt-1");
				throw new IllegalStateException("again");
			}
			// A new deployment reads the step as another type.
			return context.step("charge", Integer.class, () -> 1);
		}));

		worker().pollOnce();
		this.clock.advance(Duration.ofSeconds(11));
		worker().pollOnce();

		assertFailed(id, ErrorCodes.STEP_RESULT,
				"Step 'charge' of job " + id + " (order) failed: its result cannot be read back as java.lang.Integer");
	}

	@Test
	void aStepCalledOutsideARunningJobIsRefused() {
		AtomicReference<JobContext> kept = new AtomicReference<>();
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			kept.set(context);
			return null;
		}));
		long id = this.harness.queue.enqueue("order", 1);
		worker().pollOnce();

		assertThatIllegalStateException()
			.isThrownBy(() -> kept.get().step("late", String.class, () -> "x" + this.charges.incrementAndGet()))
			.withMessage("Step 'late' of job " + id + " (order) was called outside a running job: steps run only "
					+ "while the job's handler runs, on the JobContext it was given");
		assertThat(this.charges).hasValue(0);
		assertThat(job(id).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(this.db.store().steps(id)).isEmpty();
	}

	@Test
	void aTransactionalStepsRowAndItsRecordCommitTogetherAndLaterRunsReplayIt() {
		JobWorker worker = applicationWorker(UnaryOperator.identity());
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			Integer booked = context.transactionalStep("ledger", Integer.class, () -> {
				this.shared.writes()
					.update("INSERT INTO step_ledger (job_id, step) VALUES (?, ?)", context.jobId(), "ledger");
				return 100 + this.ledgerWrites.incrementAndGet();
			});
			if (context.attempt() == 1) {
				throw new IllegalStateException("the warehouse is down");
			}
			return "booked " + booked;
		}));
		long id = this.harness.queue.enqueue("order", 1);

		worker.pollOnce();

		assertThat(job(id).status()).isEqualTo(JobStatus.PENDING);
		assertThat(ledgerRows(id)).isOne();
		assertThat(this.db.store().steps(id)).extracting(JobStep::name, JobStep::result, JobStep::run)
			.containsExactly(tuple("ledger", "101", 1));

		this.clock.advance(Duration.ofSeconds(11));
		worker.pollOnce();

		assertThat(job(id).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job(id).result()).isEqualTo("\"booked 101\"");
		assertThat(this.ledgerWrites).as("replayed, not run again").hasValue(1);
		assertThat(ledgerRows(id)).isOne();
	}

	@Test
	void aTransactionalStepThatThrowsOrFailsToCommitLeavesNeitherItsRowNorItsRecord() {
		AtomicBoolean failBeforeCommit = new AtomicBoolean();
		// The step's work and its record done, its transaction fails before it commits
		// (a deadlock or a lost connection at commit, say).
		JobWorker worker = applicationWorker((transactions) -> new StepTransactions() {
			@Override
			public <T> T inTransaction(Supplier<T> work) {
				return transactions.inTransaction(() -> {
					T result = work.get();
					if (failBeforeCommit.get()) {
						throw new IllegalStateException("the step's transaction fails before it commits");
					}
					return result;
				});
			}
		});
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			Integer booked = context.transactionalStep("ledger", Integer.class, () -> {
				int body = this.ledgerWrites.incrementAndGet();
				this.shared.writes()
					.update("INSERT INTO step_ledger (job_id, step) VALUES (?, ?)", context.jobId(), "run " + body);
				if (body == 1) {
					throw new IllegalStateException("the ledger fails after its write");
				}
				return 100 + body;
			});
			return "booked " + booked;
		}));
		long id = this.harness.queue.enqueue("order", 1);

		worker.pollOnce();

		assertThat(job(id).status()).isEqualTo(JobStatus.PENDING);
		assertThat(detail(id).errorDetail()).contains("the ledger fails after its write");
		assertThat(ledgerRows(id)).as("the row of a step whose body threw").isZero();
		assertThat(this.db.store().steps(id)).as("the record of a step whose body threw").isEmpty();

		failBeforeCommit.set(true);
		this.clock.advance(Duration.ofSeconds(11));
		worker.pollOnce();

		assertThat(job(id).status()).isEqualTo(JobStatus.PENDING);
		assertThat(detail(id).errorDetail()).contains("the step's transaction fails before it commits");
		assertThat(this.ledgerWrites).hasValue(2);
		assertThat(ledgerRows(id)).as("the row of a step whose transaction did not commit").isZero();
		assertThat(this.db.store().steps(id)).as("the record of a step whose transaction did not commit").isEmpty();

		failBeforeCommit.set(false);
		this.clock.advance(Duration.ofMinutes(1));
		worker.pollOnce();

		assertThat(job(id).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job(id).result()).isEqualTo("\"booked 103\"");
		assertThat(ledgerRows(id)).isOne();
		assertThat(this.db.column("SELECT step FROM step_ledger WHERE job_id = ?", id)).containsExactly("run 3");
		assertThat(this.db.store().steps(id)).extracting(JobStep::name, JobStep::result, JobStep::run)
			.containsExactly(tuple("ledger", "103", 3));
	}

	@Test
	void aTransactionalStepOfARunThatLostItsLeaseRollsBackItsRowAndRecordsNothing() {
		JobWorker worker = applicationWorker(UnaryOperator.identity());
		AtomicReference<RuntimeException> refused = new AtomicReference<>();
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			try {
				return context.transactionalStep("ledger", String.class, () -> {
					// Inside the step's transaction, the lease runs out: recovery takes
					// the job back and another worker claims it (in another process),
					// before this run's record.
					this.clock.advance(Duration.ofMinutes(1));
					Instant now = this.clock.instant();
					this.db.store().recoverExpiredLeases(now, 10);
					assertThat(this.db.store().claim(claim("w2", now), now)).hasSize(1);
					this.shared.writes()
						.update("INSERT INTO step_ledger (job_id, step) VALUES (?, ?)", context.jobId(), "stale");
					return "stale-" + this.ledgerWrites.incrementAndGet();
				});
			}
			catch (RuntimeException ex) {
				refused.set(ex);
				throw ex;
			}
		}));
		long id = this.harness.queue.enqueue("order", 1);

		worker.pollOnce();

		assertThat(this.ledgerWrites).as("the stale run's work ran").hasValue(1);
		assertThat(refused.get()).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("Step 'ledger' of job " + id)
			.hasMessageContaining("no longer holds the job")
			.hasMessageContaining("the step's transaction is rolled back");
		assertThat(ledgerRows(id)).as("the stale run's application row").isZero();
		assertThat(this.db.store().steps(id)).as("the stale run's record").isEmpty();
		Job job = job(id);
		assertThat(job.status()).as("the stale run's outcome is rejected too").isEqualTo(JobStatus.RUNNING);
		assertThat(job.workerId()).isEqualTo("w2");
	}

	@Test
	void aTransactionalStepWithoutTheApplicationsTransactionsFailsTheJob() {
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			context.transactionalStep("ledger", () -> this.ledgerWrites.incrementAndGet());
			return null;
		}));
		long id = this.harness.queue.enqueue("order", 1);

		worker().pollOnce();

		assertFailed(id, ErrorCodes.STEP_TRANSACTION, "Transactional step 'ledger' of job " + id + " (order) cannot "
				+ "run: the queue knows no transaction of the application's");
		assertThat(this.ledgerWrites).hasValue(0);
	}

	@Test
	void aTransactionalStepWhoseTransactionIsNotOnTheQueuesDatabaseRecordsNothing() {
		JobWorker worker = worker();
		worker.setStepTransactions(new StepTransactions() {
			@Override
			public <T> T inTransaction(Supplier<T> work) {
				return work.get();
			}
		});
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			context.transactionalStep("ledger", () -> this.ledgerWrites.incrementAndGet());
			return null;
		}));
		long id = this.harness.queue.enqueue("order", 1);

		worker.pollOnce();

		assertFailed(id, ErrorCodes.STEP_TRANSACTION, "Transactional step 'ledger' of job " + id + " (order) cannot "
				+ "be recorded with its work: its transaction is not on the queue's DataSource");
		assertThat(this.db.store().steps(id)).isEmpty();
	}

	@Test
	void retentionDeletesStepsWithTheirJob() {
		this.failAfterSteps = false;
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> order(context)));
		long id = this.harness.queue.enqueue("order", 1);
		long kept = this.harness.queue.enqueue("order", 2);
		worker().pollOnce();
		assertThat(job(id).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(this.db.count("SELECT count(*) FROM job_steps")).isEqualTo(6);

		this.clock.advance(Duration.ofDays(31));
		int deleted = this.db.retention()
			.deleteFinished(JobStatus.SUCCEEDED, "order", this.clock.instant().minus(Duration.ofDays(30)), 1);

		assertThat(deleted).isOne();
		assertThat(this.db.count("SELECT count(*) FROM job_steps")).isEqualTo(3);
		assertThat(this.db.count("SELECT count(DISTINCT job_id) FROM job_steps")).isOne();
		assertThat(this.harness.queue.find(kept).isPresent() ^ this.harness.queue.find(id).isPresent()).isTrue();
	}

	@Test
	void aRetryKeepsTheStepsByDefaultAndCanForgetThem() {
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> order(context)));
		long id = this.harness.queue.enqueue(JobRequest.of("order", 1).maxAttempts(1));
		worker().pollOnce();
		assertThat(job(id).status()).isEqualTo(JobStatus.FAILED);

		assertThat(this.harness.queue.retry(id)).isTrue();
		worker().pollOnce();

		assertThat(job(id).status()).isEqualTo(JobStatus.FAILED);
		assertThat(this.charges).as("kept: not charged again").hasValue(1);
		assertThat(this.db.store().steps(id)).extracting(JobStep::run).containsOnly(1);

		assertThat(this.harness.queue.retry(id, RetryOptions.forgetSteps())).isTrue();
		this.failAfterSteps = false;
		worker().pollOnce();

		assertThat(job(id).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(this.charges).as("forgotten: charged again").hasValue(2);
		assertThat(job(id).result()).isEqualTo("\"receipt-2 balance 102\"");
		assertThat(this.db.store().steps(id)).extracting(JobStep::run).containsOnly(3);
		assertThat(detail(id).events()).anySatisfy((event) -> assertThat(event.detail())
			.isEqualTo("back to pending with a fresh set of attempts, its 3 recorded step(s) forgotten"));
	}

	@Test
	void theIdempotencyKeyNamesTheJobAndTheStep() {
		AtomicReference<String> key = new AtomicReference<>();
		this.harness.handle(HandlerDefinition.of("order", (payload, context) -> {
			key.set(context.idempotencyKey("charge"));
			return null;
		}));
		long id = this.harness.queue.enqueue("order", 1);

		worker().pollOnce();

		assertThat(key.get()).isEqualTo("jobqueue-" + id + "-charge");
	}

	private void assertFailed(long id, String errorCode, String detail) {
		Job job = job(id);
		assertThat(job.status()).isEqualTo(JobStatus.FAILED);
		assertThat(job.errorCode()).isEqualTo(errorCode);
		assertThat(detail(id).errorDetail()).contains(detail);
	}

	/** Never written as JSON: its one property fails. */
	public static final class Unwritable {

		public String getValue() {
			throw new IllegalStateException("not now");
		}

	}

	/** Written as JSON, never read back: no creator Jackson can use. */
	public static final class WriteOnly {

		private final String token;

		private WriteOnly(String token, int unused) {
			this.token = token;
		}

		static WriteOnly of(String token) {
			return new WriteOnly(token, 0);
		}

		public String getToken() {
			return this.token;
		}

	}

}
