package dev.jobqueue.postgresql;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.jobqueue.DependencyPolicy;
import dev.jobqueue.ErrorCodes;
import dev.jobqueue.Job;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Chains and dependencies on PostgreSQL, statement by statement (docs/chains.md): the
 * enqueue of waiting jobs, the fan-in settle on every path that finishes a job,
 * continuations, cancelChain, retention and the links insights show. The engine's
 * semantics are in the behaviour suite; concurrency is in
 * {@link PostgresChainConcurrencyTests}.
 */
@PostgresTest
class PostgresChainsTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	private PostgresTestDatabase db;

	private PostgresJobStore store;

	private PostgresJobAdminStore admin;

	@BeforeEach
	void createDatabase() {
		this.db = PostgresTestDatabase.create();
		this.store = this.db.storage().jobs();
		this.admin = this.db.storage().admin();
	}

	@AfterEach
	void dropDatabase() {
		this.db.close();
	}

	static NewJob job(String type) {
		return new NewJob(type, "{}", 0, NOW, 3, null, null);
	}

	static NewJob after(String type, DependencyPolicy policy, Long... ids) {
		return new NewJob(type, "{}", 0, NOW, 3, null, null, List.of(ids), List.of(), policy, null);
	}

	/** Children of type {@code child} at chain index 0 and a join at index 1. */
	static List<NewJob> fanOut(int children, NewJob join) {
		List<NewJob> jobs = new ArrayList<>();
		for (int i = 0; i < children; i++) {
			jobs.add(job("child").withChainIndex(0));
		}
		jobs.add(join.withAfterInBatch(IntStream.range(0, children).boxed().toList()).withChainIndex(1));
		return jobs;
	}

	private List<Long> enqueue(List<NewJob> jobs) {
		return this.store.enqueue(jobs, NOW, () -> {
		});
	}

	private List<ClaimedJob> claim(String type, int limit, Instant at) {
		return this.store.claim(new ClaimRequest("w1", limit, Set.of(type), Map.of(), Set.of(), at.plusSeconds(30)),
				at);
	}

	private ClaimedJob claimOne(String type) {
		List<ClaimedJob> claimed = claim(type, 1, NOW);
		assertThat(claimed).hasSize(1);
		return claimed.get(0);
	}

	private Job find(long id) {
		return this.admin.find(id).orElseThrow();
	}

	private List<String> events(long id) {
		return this.db.storage()
			.insights()
			.job(id, 0)
			.orElseThrow()
			.events()
			.stream()
			.map(QueueInsights.Event::event)
			.toList();
	}

	@Test
	void aFanOutIsOneChainAndItsJoinTurnsPendingWithTheLastChild() {
		List<Long> ids = enqueue(fanOut(3, job("join")));
		long join = ids.get(3);
		assertThat(ids).isSorted().doesNotHaveDuplicates();
		Job waiting = find(join);
		assertThat(waiting.status()).isEqualTo(JobStatus.WAITING);
		assertThat(waiting.unfinishedDependencies()).isEqualTo(3);
		assertThat(waiting.chainId()).isEqualTo(ids.get(0));
		assertThat(waiting.chainIndex()).isEqualTo(1);
		assertThat(this.admin.findChain(ids.get(0))).extracting(Job::id).containsExactlyElementsOf(ids);
		assertThat(claim("join", 10, NOW)).isEmpty();

		Instant later = NOW.plusSeconds(60);
		for (int i = 0; i < 3; i++) {
			ClaimedJob child = claimOne("child");
			assertThat(this.store.complete(List.of(Completion.succeeded(child, null)), "w1", later))
				.containsExactly(true);
			assertThat(find(join).status()).isEqualTo((i < 2) ? JobStatus.WAITING : JobStatus.PENDING);
		}
		Job pending = find(join);
		assertThat(pending.unfinishedDependencies()).isZero();
		// The time it waited is not lateness: due when it became pending.
		assertThat(pending.runAt()).isEqualTo(later);
		assertThat(events(join)).containsExactly("ENQUEUED", "DEPENDENCIES_MET");
		assertThat(claim("join", 10, later)).extracting(ClaimedJob::id).containsExactly(join);
	}

	@Test
	void waitingForAJobThatDoesNotExistWritesNothing() {
		long existing = enqueue(List.of(job("a"))).get(0);
		assertThatExceptionOfType(JobQueueException.class)
			.isThrownBy(() -> enqueue(List.of(job("b"), after("c", DependencyPolicy.CANCEL, existing, 4711L))))
			.withMessageContaining("4711")
			.withMessageContaining("nothing was enqueued");
		assertThat(this.db.column("SELECT count(*) FROM jobs")).containsExactly(1L);
		assertThat(this.db.column("SELECT count(*) FROM job_dependencies")).containsExactly(0L);
	}

	@Test
	void dependenciesFinishedAtEnqueueCountAtOnce() {
		long succeeded = enqueue(List.of(job("a"))).get(0);
		this.store.complete(List.of(Completion.succeeded(claimOne("a"), null)), "w1", NOW);
		long failed = enqueue(List.of(job("a"))).get(0);
		this.store.complete(List.of(Completion.failed(claimOne("a"), "X:Y", "boom")), "w1", NOW);
		long unfinished = enqueue(List.of(job("a"))).get(0);

		long pending = enqueue(List.of(after("b", DependencyPolicy.CANCEL, succeeded))).get(0);
		long waiting = enqueue(List.of(after("b", DependencyPolicy.CANCEL, succeeded, unfinished))).get(0);
		long cancelled = enqueue(List.of(after("b", DependencyPolicy.CANCEL, succeeded, failed))).get(0);
		long failedToo = enqueue(List.of(after("b", DependencyPolicy.FAIL, failed))).get(0);
		long runs = enqueue(List.of(after("b", DependencyPolicy.RUN, failed, succeeded))).get(0);

		assertThat(find(pending).status()).isEqualTo(JobStatus.PENDING);
		assertThat(find(waiting).status()).isEqualTo(JobStatus.WAITING);
		assertThat(find(waiting).unfinishedDependencies()).isEqualTo(1);
		assertThat(find(cancelled).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(find(cancelled).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_FAILED);
		assertThat(find(cancelled).finishedAt()).isEqualTo(NOW);
		assertThat(find(failedToo).status()).isEqualTo(JobStatus.FAILED);
		assertThat(find(runs).status()).isEqualTo(JobStatus.PENDING);
		// Every dependency has its row, finished ones too: they are what "waits for"
		// shows.
		assertThat(this.db.column("SELECT count(*) FROM job_dependencies")).containsExactly(8L);
	}

	@Test
	void aFailureEndsDependentsByTheirPolicyAndTheirDependentsInTurn() {
		long root = enqueue(List.of(job("a"))).get(0);
		long cancelledByPolicy = enqueue(List.of(after("b", DependencyPolicy.CANCEL, root))).get(0);
		long failedByPolicy = enqueue(List.of(after("c", DependencyPolicy.FAIL, cancelledByPolicy))).get(0);
		long runsAnyway = enqueue(List.of(after("d", DependencyPolicy.RUN, root))).get(0);
		long runsAfterCascade = enqueue(List.of(after("e", DependencyPolicy.RUN, failedByPolicy, root))).get(0);

		this.store.complete(List.of(Completion.failed(claimOne("a"), "X:Y", "boom")), "w1", NOW);

		assertThat(find(cancelledByPolicy).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(find(cancelledByPolicy).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_FAILED);
		assertThat(find(cancelledByPolicy).errorDetail()).contains("Job " + root);
		assertThat(find(failedByPolicy).status()).isEqualTo(JobStatus.FAILED);
		assertThat(find(failedByPolicy).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_CANCELLED);
		assertThat(find(runsAnyway).status()).isEqualTo(JobStatus.PENDING);
		assertThat(find(runsAfterCascade).status()).isEqualTo(JobStatus.PENDING);
		assertThat(events(cancelledByPolicy)).containsExactly("ENQUEUED", "DEPENDENCY_FAILED", "CANCELLED");
	}

	@Test
	void aContinuationIsInsertedOnlyByTheCompletionThatApplies() {
		long first = enqueue(List.of(job("a"))).get(0);
		ClaimedJob run = claimOne("a");
		Completion success = Completion.succeeded(run, null).withNext(List.of(job("b").withChainIndex(1)));
		assertThat(this.store.complete(List.of(success), "w1", NOW)).containsExactly(true);
		// The same outcome reported again (a retried write) is rejected and creates
		// nothing.
		assertThat(this.store.complete(List.of(success), "w1", NOW)).containsExactly(false);

		List<Job> chain = this.admin.findChain(first);
		assertThat(chain).extracting(Job::type).containsExactly("a", "b");
		assertThat(chain).extracting(Job::chainIndex).containsExactly(0, 1);
		assertThat(chain.get(1).status()).isEqualTo(JobStatus.PENDING);
		assertThat(events(first)).contains("CONTINUED");

		// The next step continues with a fan-out: children at 2, join at 3.
		ClaimedJob second = claimOne("b");
		List<NewJob> next = fanOut(2, job("join")).stream()
			.map((job) -> job.withChainIndex(job.chainIndex() + 1))
			.toList();
		this.store.complete(List.of(Completion.succeeded(second, null).withNext(next)), "w1", NOW);
		assertThat(this.admin.findChain(first)).extracting(Job::chainIndex).containsExactly(0, 1, 2, 2, 3);
		assertThat(this.admin.findChain(first).get(4).status()).isEqualTo(JobStatus.WAITING);
	}

	@Test
	void aJobWhoseCancelWasRequestedContinuesWithNothing() {
		long id = enqueue(List.of(job("a"))).get(0);
		ClaimedJob run = claimOne("a");
		assertThat(this.admin.cancel(id, NOW)).isTrue();
		this.store.complete(List.of(Completion.succeeded(run, null).withNext(List.of(job("b").withChainIndex(1)))),
				"w1", NOW);
		assertThat(this.db.column("SELECT count(*) FROM jobs")).containsExactly(1L);
	}

	@Test
	void cancellingAChainCancelsItsUnstartedStepsAndSettlesJobsOutsideIt() {
		List<Long> ids = enqueue(fanOut(2, job("join")));
		long chain = ids.get(0);
		long outside = enqueue(List.of(after("x", DependencyPolicy.RUN, ids.get(2)))).get(0);
		ClaimedJob running = claimOne("child");

		assertThat(this.admin.cancelChain(chain, NOW)).containsExactlyElementsOf(ids);

		assertThat(find(running.id()).cancelRequested()).isTrue();
		long unstartedChild = ids.get(0).equals(running.id()) ? ids.get(1) : ids.get(0);
		assertThat(find(unstartedChild).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(find(unstartedChild).errorCode()).isEqualTo(ErrorCodes.CANCELLED_CHAIN);
		assertThat(find(ids.get(2)).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(find(outside).status()).isEqualTo(JobStatus.PENDING);
		// The running step's success creates no continuation any more.
		this.store.complete(
				List.of(Completion.succeeded(running, null).withNext(List.of(job("next").withChainIndex(1)))), "w1",
				NOW);
		assertThat(this.admin.findChain(chain)).hasSize(3);
	}

	@Test
	void cancellingAWaitingJobSettlesItsDependents() {
		long root = enqueue(List.of(job("a"))).get(0);
		long waiting = enqueue(List.of(after("b", DependencyPolicy.CANCEL, root))).get(0);
		long dependent = enqueue(List.of(after("c", DependencyPolicy.CANCEL, waiting))).get(0);
		assertThat(this.admin.cancel(waiting, NOW)).isTrue();
		assertThat(find(waiting).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(find(dependent).status()).isEqualTo(JobStatus.CANCELLED);
		assertThat(find(dependent).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_CANCELLED);
		// A retry puts the job ended by its policy back to pending, without waiting.
		assertThat(this.admin.retry(dependent, NOW)).isTrue();
		assertThat(find(dependent).status()).isEqualTo(JobStatus.PENDING);
	}

	@Test
	void aJobFailedByItsExpiredLeaseSettlesItsDependents() {
		long root = enqueue(List.of(job("a"))).get(0);
		long dependent = enqueue(List.of(after("b", DependencyPolicy.FAIL, root))).get(0);
		this.store.claim(new ClaimRequest("w1", 1, Set.of("a"), Map.of(), Set.of("a"), NOW.plusSeconds(30)), NOW);
		assertThat(this.store.recoverExpiredLeases(NOW.plusSeconds(60), 10)).isEqualTo(1);
		assertThat(find(root).errorCode()).isEqualTo(ErrorCodes.LEASE_EXPIRED_NOT_REPEATABLE);
		assertThat(find(dependent).status()).isEqualTo(JobStatus.FAILED);
		assertThat(find(dependent).errorCode()).isEqualTo(ErrorCodes.DEPENDENCY_FAILED_FAILED);
	}

}
