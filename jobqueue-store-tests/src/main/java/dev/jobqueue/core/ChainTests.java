package dev.jobqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.ErrorCodes;
import dev.jobqueue.FanOut;
import dev.jobqueue.Job;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.testing.StoreFixture;
import dev.jobqueue.testing.StoreTests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Chains and dependencies (docs/chains.md) on every store: continuations created once
 * with the success, fan-out and fan-in, dependency policies, chain cancel, bad input.
 */
public abstract class ChainTests extends StoreTests {

	private Job job(long id) {
		return this.harness.queue.find(id).orElseThrow();
	}

	private long jobCount() {
		return this.db.count("SELECT count(*) FROM jobs");
	}

	private static ClaimRequest claimOf(String type, int limit, Instant leaseUntil) {
		return new ClaimRequest("w1", limit, Set.of(type), Map.of(), Set.of(), leaseUntil);
	}

	@Test
	void aContinuationIsTheNextStepOfTheChainAndTheChainEndsWithTheLastStep() {
		this.harness.handle(HandlerDefinition.of("upload", (payload, context) -> {
			context.continueWith("scan", payload);
			return "uploaded";
		})).handle(HandlerDefinition.of("scan", (payload, context) -> {
			context.continueWith(JobRequest.of("publish", payload).priority(5));
			return "scanned";
		})).handle(HandlerDefinition.of("publish", (payload, context) -> "published"));
		long upload = this.harness.queue.enqueue("upload", "file-1");
		JobWorker worker = this.harness.directWorker("w1");
		for (int i = 0; i < 4; i++) {
			worker.pollOnce();
		}
		List<Job> chain = this.harness.queue.findChain(upload);
		assertThat(chain).extracting(Job::type).containsExactly("upload", "scan", "publish");
		assertThat(chain).extracting(Job::chainIndex).containsExactly(0, 1, 2);
		assertThat(chain).allSatisfy((step) -> {
			assertThat(step.chainId()).isEqualTo(upload);
			assertThat(step.status()).isEqualTo(JobStatus.SUCCEEDED);
		});
		assertThat(chain.get(2).priority()).isEqualTo(5);
		assertThat(chain.get(2).result()).isEqualTo("\"published\"");
		assertThat(this.db.column("SELECT detail FROM job_events WHERE job_id = ? AND event = 'CONTINUED'", upload))
			.containsExactly("next: job(s) [" + chain.get(1).id() + "]");
	}

	@Test
	void aRunThatDoesNotSucceedCreatesNothingAndItsRetryDecidesAgain() {
		AtomicInteger runs = new AtomicInteger();
		this.harness.handle(HandlerDefinition.of("flaky", (payload, context) -> {
			context.continueWith("next", runs.incrementAndGet());
			if (runs.get() == 1) {
				throw new IllegalStateException("first attempt fails after asking for a next step");
			}
			return null;
		}));
		long id = this.harness.queue.enqueue(JobRequest.of("flaky", 1).maxAttempts(3));
		JobWorker worker = this.harness.directWorker("w1");
		worker.pollOnce();
		assertThat(jobCount()).isEqualTo(1);
		this.clock.advance(Duration.ofHours(1));
		worker.pollOnce();
		assertThat(job(id).status()).isEqualTo(JobStatus.SUCCEEDED);
		List<Job> chain = this.harness.queue.findChain(id);
		assertThat(chain).hasSize(2);
		assertThat(chain.get(1).payload()).isEqualTo("2");
		// Nobody handles "next": it waits, pending, like any job of an unhandled type.
		assertThat(chain.get(1).status()).isEqualTo(JobStatus.PENDING);
	}

	@Test
	void aCompletionRejectedByTheFenceCreatesNoStepAndTheWinningRunCreatesItOnce() {
		long id = this.harness.queue.enqueue("step", 1);
		Instant now = this.clock.instant();
		ClaimedJob first = this.db.store().claim(claimOf("step", 1, now.plusSeconds(30)), now).get(0);
		this.clock.advance(Duration.ofMinutes(1));
		now = this.clock.instant();
		assertThat(this.db.store().recoverExpiredLeases(now, 10)).isEqualTo(1);
		ClaimedJob second = this.db.store().claim(claimOf("step", 1, now.plusSeconds(30)), now).get(0);
		List<NewJob> next = List.of(new NewJob("after-step", "{}", 0, now, 3, null, null).withChainIndex(1));

		boolean[] stale = this.db.store().complete(List.of(Completion.succeeded(first, "1").withNext(next)), "w1", now);
		assertThat(stale).containsExactly(false);
		assertThat(jobCount()).isEqualTo(1);

		boolean[] winner = this.db.store()
			.complete(List.of(Completion.succeeded(second, "2").withNext(next)), "w1", now);
		boolean[] again = this.db.store()
			.complete(List.of(Completion.succeeded(second, "2").withNext(next)), "w1", now);
		assertThat(winner).containsExactly(true);
		assertThat(again).containsExactly(false);
		assertThat(this.harness.queue.findChain(id)).extracting(Job::type).containsExactly("step", "after-step");
	}

	@Test
	void aFanInOfTenThousandChildrenRunsItsJoinOnceAfterTheLastChild() {
		int children = 10_000;
		AtomicInteger joins = new AtomicInteger();
		List<Long> finishedAtJoin = new ArrayList<>();
		this.harness.concurrency(500)
			.handle(HandlerDefinition.of("row", (payload, context) -> null))
			.handle(HandlerDefinition.of("summary", (payload, context) -> {
				joins.incrementAndGet();
				finishedAtJoin
					.add(this.db.count("SELECT count(*) FROM jobs WHERE type = 'row' AND status = 'succeeded'"));
				return null;
			}));
		List<JobRequest> rows = IntStream.range(0, children).mapToObj((i) -> JobRequest.of("row", i)).toList();
		FanOut fanOut = this.harness.queue.enqueueFanOut(rows, JobRequest.of("summary", "all rows"));
		assertThat(fanOut.childIds()).hasSize(children);
		assertThat(fanOut.chainId()).isEqualTo(fanOut.childIds().get(0));
		Job waiting = job(fanOut.joinId());
		assertThat(waiting.status()).isEqualTo(JobStatus.WAITING);
		assertThat(waiting.unfinishedDependencies()).isEqualTo(children);
		JobWorker worker = this.harness.directWorker("w1");
		while (this.db.count("SELECT count(*) FROM jobs WHERE type = 'row' AND status <> 'succeeded'") > 0) {
			assertThat(job(fanOut.joinId()).status()).isEqualTo(JobStatus.WAITING);
			worker.pollOnce();
		}
		worker.pollOnce();
		worker.pollOnce();
		assertThat(joins).hasValue(1);
		assertThat(finishedAtJoin).containsExactly((long) children);
		Job join = job(fanOut.joinId());
		assertThat(join.status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(join.chainIndex()).isEqualTo(1);
		assertThat(this.db.column("SELECT event FROM job_events WHERE job_id = ? ORDER BY id", join.id()))
			.containsExactly("ENQUEUED", "DEPENDENCIES_MET", "CLAIMED", "SUCCEEDED");
	}

	@Test
	void aFailedDependencyIsHandledByEachPolicy() {
		this.harness.handle(HandlerDefinition.of("breaks", (payload, context) -> {
			throw new IllegalStateException("broken");
		})).handle(HandlerDefinition.of("after", (payload, context) -> "ran"));
		long breaks = this.harness.queue.enqueue(JobRequest.of("breaks", 1).maxAttempts(1));
		long ok = this.harness.queue.enqueue("after", "dependency that succeeds");
		long cancels = this.harness.queue.enqueue(JobRequest.of("after", "cancel").after(breaks, ok));
		long fails = this.harness.queue
			.enqueue(JobRequest.of("after", "fail").after(breaks).onDependencyFailure(DependencyPolicy.FAIL));
		long runs = this.harness.queue
			.enqueue(JobRequest.of("after", "run").after(breaks, ok).onDependencyFailure(DependencyPolicy.RUN));
		long waitsForTheCancelled = this.harness.queue.enqueue(JobRequest.of("after", "second level").after(cancels));
		assertThat(job(cancels).status()).isEqualTo(JobStatus.WAITING);
		assertThat(job(runs).unfinishedDependencies()).isEqualTo(2);

		JobWorker worker = this.harness.directWorker("w1");
		for (int i = 0; i < 4; i++) {
			worker.pollOnce();
		}
		assertThat(job(breaks).status()).isEqualTo(JobStatus.FAILED);
		assertThat(job(cancels).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(job(cancels).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_FAILED);
		assertThat(job(fails).status()).isEqualTo(JobStatus.FAILED);
		assertThat(job(fails).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_FAILED);
		assertThat(job(runs).status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(job(waitsForTheCancelled).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(job(waitsForTheCancelled).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_CANCELLED);
	}

	@Test
	void dependenciesFinishedAtEnqueueCountAtOnce() {
		this.harness.handle(HandlerDefinition.of("ok", (payload, context) -> null));
		long ok = this.harness.queue.enqueue("ok", 1);
		long cancelled = this.harness.queue.enqueue("ok", 2);
		this.harness.queue.cancel(cancelled);
		this.harness.directWorker("w1").pollOnce();

		long ready = this.harness.queue.enqueue(JobRequest.of("ok", 3).after(ok));
		long refused = this.harness.queue.enqueue(JobRequest.of("ok", 4).after(ok, cancelled));
		long runsAnyway = this.harness.queue
			.enqueue(JobRequest.of("ok", 5).after(cancelled).onDependencyFailure(DependencyPolicy.RUN));
		assertThat(job(ready).status()).isEqualTo(JobStatus.PENDING);
		assertThat(job(refused).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(job(refused).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_CANCELLED);
		assertThat(job(runsAnyway).status()).isEqualTo(JobStatus.PENDING);
	}

	@Test
	void cancellingAJobSettlesWhatWaitsForItAndALostLeaseToo() {
		long first = this.harness.queue.enqueue("slow", 1);
		long second = this.harness.queue.enqueue(JobRequest.of("slow", 2).maxAttempts(1));
		long afterFirst = this.harness.queue.enqueue(JobRequest.of("next", 1).after(first));
		long afterSecond = this.harness.queue.enqueue(JobRequest.of("next", 2).after(second));
		assertThat(this.harness.queue.cancel(first)).isTrue();
		assertThat(job(afterFirst).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(job(afterFirst).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_CANCELLED);

		Instant now = this.clock.instant();
		this.db.store().claim(claimOf("slow", 1, now.plusSeconds(30)), now);
		this.clock.advance(Duration.ofMinutes(1));
		this.db.store().recoverExpiredLeases(this.clock.instant(), 10);
		assertThat(job(second).status()).isEqualTo(JobStatus.FAILED);
		assertThat(job(afterSecond).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(job(afterSecond).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_FAILED);
	}

	@Test
	void cancellingAChainCancelsItsUnfinishedStepsAndNoContinuationFollowsARunningOne() {
		AtomicInteger ran = new AtomicInteger();
		this.harness.handle(HandlerDefinition.of("part", (payload, context) -> {
			ran.incrementAndGet();
			return null;
		}));
		FanOut fanOut = this.harness.queue.enqueueFanOut(
				List.of(JobRequest.of("part", 1), JobRequest.of("part", 2), JobRequest.of("part", 3)),
				JobRequest.of("part", "join"));
		long outsider = this.harness.queue.enqueue(JobRequest.of("part", "outside").after(fanOut.joinId()));
		Instant now = this.clock.instant();
		ClaimedJob running = this.db.store().claim(claimOf("part", 1, now.plusSeconds(30)), now).get(0);

		assertThat(this.harness.queue.cancelChain(fanOut.chainId())).isEqualTo(4);
		List<Job> chain = this.harness.queue.findChain(fanOut.chainId());
		assertThat(chain).filteredOn((step) -> step.id() != running.id()).allSatisfy((step) -> {
			assertThat(step.status()).isEqualTo(JobStatus.CANCELLED);
			assertThat(step.errorCode()).isEqualTo(ErrorCodes.CANCELLED_CHAIN);
		});
		assertThat(job(running.id()).cancelRequested()).isTrue();
		assertThat(job(outsider).status()).isEqualTo(JobStatus.CANCELLED);

		// The running step ignores the cancel and succeeds: its continuation is not
		// created.
		List<NewJob> next = List.of(new NewJob("late", "{}", 0, now, 3, null, null).withChainIndex(1));
		assertThat(this.db.store()
			.complete(List.of(Completion.succeeded(running, null).withNext(next)), "w1", this.clock.instant()))
			.containsExactly(true);
		assertThat(this.db.count("SELECT count(*) FROM jobs WHERE type = 'late'")).isZero();
		assertThat(this.harness.queue.cancelChain(fanOut.chainId())).isZero();
		assertThat(ran).hasValue(0);
	}

	@Test
	void waitingForAJobThatDoesNotExistIsRefusedAndWritesNothing() {
		long existing = this.harness.queue.enqueue("a", 1);
		// The id the next job would get: a job can only wait for jobs that exist, so
		// waiting can never form a cycle.
		long next = existing + 1;
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> this.harness.queue.enqueueAll(List.of(JobRequest.of("b", 1),
					JobRequest.of("c", 1).after(existing, next + 1000), JobRequest.of("d", 1))))
			.withMessageContaining("Cannot wait for job(s) [" + (next + 1000) + "]");
		assertThat(jobCount()).isEqualTo(1);
		assertThat(this.db.count("SELECT count(*) FROM job_dependencies")).isZero();
	}

	@Test
	void waitingForAJobOfAnotherTablePrefixIsRefused() {
		try (StoreFixture other = createFixture(this.dir, "jq_")) {
			DefaultJobQueue otherQueue = new DefaultJobQueue(other.store(), other.admin(),
					dev.jobqueue.testing.WorkerHarness.CODEC, new HandlerRegistry(), this.clock,
					new EnqueueLimits(3, 64 * 1024), null);
			long elsewhere = otherQueue.enqueue("a", 1);
			assertThatExceptionOfType(JobQueueException.class)
				.isThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("b", 1).after(elsewhere)))
				.withMessageContaining("no such job in this queue");
			assertThat(jobCount()).isZero();
		}
	}

	@Test
	void waitingForMoreJobsThanTheLimitIsRefusedButAFanOutMayBeWider() {
		long[] ids = LongStream.rangeClosed(1, EnqueueLimits.MAX_DEPENDENCIES + 1).toArray();
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("b", 1).after(ids)))
			.withMessageContaining("more than the " + EnqueueLimits.MAX_DEPENDENCIES)
			.withMessageContaining("enqueueFanOut");
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> this.harness.queue.enqueue(JobRequest.of("b", 1).after(1).dedupKey("k")))
			.withMessageContaining("cannot have a dedup key");
		assertThat(jobCount()).isZero();
	}

	@Test
	void aHandlerFansOutAndTheJoinIsTheStepAfterTheChildren() {
		this.harness.concurrency(10).handle(HandlerDefinition.of("import", (payload, context) -> {
			context.continueWithFanOut(List.of(JobRequest.of("line", 1), JobRequest.of("line", 2)),
					JobRequest.of("summary", "done"));
			return null;
		}))
			.handle(HandlerDefinition.of("line", (payload, context) -> null))
			.handle(HandlerDefinition.of("summary", (payload, context) -> "summed"));
		long id = this.harness.queue.enqueue("import", "file.csv");
		JobWorker worker = this.harness.directWorker("w1");
		worker.pollOnce();
		List<Job> chain = this.harness.queue.findChain(id);
		assertThat(chain).extracting(Job::type).containsExactly("import", "line", "line", "summary");
		assertThat(chain).extracting(Job::chainIndex).containsExactly(0, 1, 1, 2);
		assertThat(chain.get(3).status()).isEqualTo(JobStatus.WAITING);
		for (int i = 0; i < 3; i++) {
			worker.pollOnce();
		}
		assertThat(this.harness.queue.findChain(id))
			.allSatisfy((step) -> assertThat(step.status()).isEqualTo(JobStatus.SUCCEEDED));
	}

	@Test
	void aBadContinuationFailsTheRunAndCreatesNothing() {
		this.harness.handle(HandlerDefinition.of("bad", (payload, context) -> {
			context.continueWith(JobRequest.of("next", 1).after(1));
			return null;
		})).handle(HandlerDefinition.of("twice", (payload, context) -> {
			context.continueWith("next", 1);
			context.continueWith("next", 2);
			return null;
		}));
		long bad = this.harness.queue.enqueue(JobRequest.of("bad", 1).maxAttempts(1));
		long twice = this.harness.queue.enqueue(JobRequest.of("twice", 1).maxAttempts(1));
		JobWorker worker = this.harness.directWorker("w1");
		worker.pollOnce();
		worker.pollOnce();
		assertThat(job(bad).status()).isEqualTo(JobStatus.FAILED);
		assertThat(job(twice).status()).isEqualTo(JobStatus.FAILED);
		assertThat(jobCount()).isEqualTo(2);
	}

	@Test
	void aDedupKeyBesideJobsThatWaitStillDeduplicatesButTheStoreRefusesOneOnAChainStep() {
		long dependency = this.harness.queue.enqueue("slow", 1);
		long existing = this.harness.queue.enqueue(JobRequest.of("report", "first").dedupKey("daily"));
		List<Long> ids = this.harness.queue.enqueueAll(List.of(JobRequest.of("report", "again").dedupKey("daily"),
				JobRequest.of("next", 1).after(dependency), JobRequest.of("report", "other").dedupKey("weekly")));
		assertThat(ids.get(0)).isEqualTo(existing);
		assertThat(job(ids.get(1)).status()).isEqualTo(JobStatus.WAITING);
		assertThat(job(ids.get(2)).dedupKey()).isEqualTo("weekly");

		// The engine refuses a dedup key on a fan-out's child; a store handed one anyway
		// refuses it rather than drop it, and writes nothing.
		long before = jobCount();
		Instant now = this.clock.instant();
		List<NewJob> fanOut = List.of(new NewJob("child", "{}", 0, now, 3, "key", null).withChainIndex(0),
				new NewJob("join", "{}", 0, now, 3, null, null).withAfterInBatch(List.of(0)).withChainIndex(1));
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> this.db.store().enqueue(fanOut, now, () -> {
			}))
			.withMessageContaining("cannot have a dedup key");
		assertThat(jobCount()).isEqualTo(before);
	}

}
