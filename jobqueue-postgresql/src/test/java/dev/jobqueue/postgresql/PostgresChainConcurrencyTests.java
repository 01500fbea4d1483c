package dev.jobqueue.postgresql;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.jobqueue.FanOut;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.store.ClaimRequest;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.postgresql.testing.PostgresTest;
import dev.jobqueue.postgresql.testing.PostgresTestDatabase;
import dev.jobqueue.testing.MutableClock;
import dev.jobqueue.testing.WorkerHarness;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two processes (each a pool and stores of its own on one database) finishing children of
 * the same joins at the same time, in separate transactions: the row lock on a join
 * serialises their counts, the one that reaches zero turns it pending (once), and the
 * joins are locked in id order so overlapping batches never deadlock.
 */
@PostgresTest
class PostgresChainConcurrencyTests {

	private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

	private PostgresTestDatabase first;

	private PostgresTestDatabase second;

	private ExecutorService threads;

	@BeforeEach
	void createDatabase() {
		this.first = PostgresTestDatabase.create();
		this.second = this.first.anotherProcess();
		this.threads = Executors.newFixedThreadPool(4);
	}

	@AfterEach
	void dropDatabase() {
		this.threads.shutdownNow();
		this.second.close();
		this.first.close();
	}

	/**
	 * {@code children} jobs of type child, then {@code joins} jobs each waiting for all.
	 */
	private static List<NewJob> fanOut(int children, int joins) {
		List<NewJob> jobs = new ArrayList<>();
		for (int i = 0; i < children; i++) {
			jobs.add(PostgresChainsTests.job("child").withChainIndex(0));
		}
		List<Integer> positions = IntStream.range(0, children).boxed().toList();
		for (int i = 0; i < joins; i++) {
			jobs.add(PostgresChainsTests.job("join").withAfterInBatch(positions).withChainIndex(1));
		}
		return jobs;
	}

	private static List<ClaimedJob> claim(PostgresTestDatabase process, String type, int limit) {
		return process.store()
			.claim(new ClaimRequest("w-" + process.hashCode(), limit, Set.of(type), Map.of(), Set.of(),
					NOW.plusSeconds(300)), NOW);
	}

	private static boolean[] succeed(PostgresTestDatabase process, List<ClaimedJob> jobs) {
		List<Completion> completions = jobs.stream().map((job) -> Completion.succeeded(job, null)).toList();
		return process.store().complete(completions, "w-" + process.hashCode(), NOW);
	}

	private long dependenciesMet(long job) {
		return (long) this.first
			.column("SELECT count(*) FROM job_events WHERE job_id = ? AND event = 'DEPENDENCIES_MET'", job)
			.get(0);
	}

	@Test
	void theLastTwoChildrenFinishingAtOnceTurnTheirJoinPendingExactlyOnceAndItRunsOnce() throws Exception {
		for (int round = 0; round < 40; round++) {
			List<Long> ids = this.first.store().enqueue(fanOut(2, 1), NOW, () -> {
			});
			long join = ids.get(2);
			ClaimedJob one = claim(this.first, "child", 1).get(0);
			ClaimedJob other = claim(this.second, "child", 1).get(0);
			CyclicBarrier together = new CyclicBarrier(2);
			Future<boolean[]> fromFirst = this.threads.submit(() -> {
				together.await();
				return succeed(this.first, List.of(one));
			});
			Future<boolean[]> fromSecond = this.threads.submit(() -> {
				together.await();
				return succeed(this.second, List.of(other));
			});
			assertThat(fromFirst.get()).containsExactly(true);
			assertThat(fromSecond.get()).containsExactly(true);

			assertThat(this.first.admin().find(join).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
			assertThat(this.first.admin().find(join).orElseThrow().unfinishedDependencies()).isZero();
			assertThat(dependenciesMet(join)).isEqualTo(1);

			// Both processes try to claim it at once: one run.
			CompletableFuture<List<ClaimedJob>> claimFirst = CompletableFuture
				.supplyAsync(() -> claim(this.first, "join", 10), this.threads);
			CompletableFuture<List<ClaimedJob>> claimSecond = CompletableFuture
				.supplyAsync(() -> claim(this.second, "join", 10), this.threads);
			List<ClaimedJob> claimed = new ArrayList<>(claimFirst.get());
			claimed.addAll(claimSecond.get());
			assertThat(claimed).extracting(ClaimedJob::id).containsExactly(join);
			assertThat(succeed(this.first, claimed)).containsExactly(true);
		}
		assertThat(this.first
			.column("SELECT count(*) FROM job_attempts a JOIN jobs j ON j.id = a.job_id " + "WHERE j.type = 'join'"))
			.containsExactly(40L);
	}

	@Test
	void batchesSettlingTheSameJoinsInOppositeOrdersDoNotDeadlock() throws Exception {
		int joins = 5;
		for (int round = 0; round < 20; round++) {
			// Join j waits for children 4j to 4j+3.
			List<NewJob> jobs = new ArrayList<>();
			for (int i = 0; i < joins * 4; i++) {
				jobs.add(PostgresChainsTests.job("child"));
			}
			for (int j = 0; j < joins; j++) {
				int firstChild = 4 * j;
				jobs.add(PostgresChainsTests.job("join")
					.withAfterInBatch(List.of(firstChild, firstChild + 1, firstChild + 2, firstChild + 3)));
			}
			List<Long> ids = this.first.store().enqueue(jobs, NOW, () -> {
			});
			List<ClaimedJob> children = claim(this.first, "child", joins * 4);
			children.sort(java.util.Comparator.comparingLong(ClaimedJob::id));
			// One process finishes two children of each join, joins in ascending order;
			// the other the two others, joins in descending order.
			List<ClaimedJob> ascending = new ArrayList<>();
			List<ClaimedJob> descending = new ArrayList<>();
			for (int j = 0; j < joins; j++) {
				ascending.addAll(children.subList(4 * j, 4 * j + 2));
				descending.addAll(0, children.subList(4 * j + 2, 4 * j + 4));
			}
			CyclicBarrier together = new CyclicBarrier(2);
			Future<boolean[]> fromFirst = this.threads.submit(() -> {
				together.await();
				return succeed(this.first, ascending);
			});
			Future<boolean[]> fromSecond = this.threads.submit(() -> {
				together.await();
				return succeed(this.second, descending);
			});
			assertThat(fromFirst.get()).containsOnly(true);
			assertThat(fromSecond.get()).containsOnly(true);
			for (long join : ids.subList(joins * 4, joins * 5)) {
				assertThat(this.first.admin().find(join).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
				assertThat(dependenciesMet(join)).isEqualTo(1);
			}
		}
		// Not one transaction was rolled back for a deadlock and run again.
		assertThat(this.first.storage().lockRetries()).isZero();
		assertThat(this.second.storage().lockRetries()).isZero();
	}

	@Test
	void workersOfTwoProcessesRunAFanOutAndItsJoinRunsOnceAfterEveryChild() throws Exception {
		MutableClock clock = new MutableClock(NOW);
		AtomicInteger rows = new AtomicInteger();
		AtomicInteger summaries = new AtomicInteger();
		List<Long> finishedWhenJoined = new java.util.concurrent.CopyOnWriteArrayList<>();
		WorkerHarness here = harness(this.first, clock, rows, summaries, finishedWhenJoined);
		WorkerHarness there = harness(this.second, clock, rows, summaries, finishedWhenJoined);
		int children = 600;
		FanOut fanOut = here.queue.enqueueFanOut(
				IntStream.range(0, children).mapToObj((i) -> JobRequest.of("row", i)).toList(),
				JobRequest.of("summary", "all rows"));
		JobWorker one = here.directWorker("one");
		JobWorker other = there.directWorker("other");
		List<Future<?>> loops = new ArrayList<>();
		for (JobWorker worker : List.of(one, other)) {
			loops.add(this.threads.submit(() -> {
				while (summaries.get() == 0) {
					worker.pollOnce();
				}
				return null;
			}));
		}
		for (Future<?> loop : loops) {
			loop.get(5, java.util.concurrent.TimeUnit.MINUTES);
		}
		// Both workers poll once more: nothing runs twice.
		one.pollOnce();
		other.pollOnce();
		assertThat(rows).hasValue(children);
		assertThat(summaries).hasValue(1);
		assertThat(finishedWhenJoined).containsExactly((long) children);
		assertThat(this.first.admin().find(fanOut.joinId()).orElseThrow().status()).isEqualTo(JobStatus.SUCCEEDED);
		assertThat(dependenciesMet(fanOut.joinId())).isEqualTo(1);
		// Both processes ran children.
		assertThat(this.first.column("SELECT DISTINCT worker_id FROM jobs WHERE type = 'row' ORDER BY 1"))
			.containsExactly("one", "other");
	}

	private WorkerHarness harness(PostgresTestDatabase process, MutableClock clock, AtomicInteger rows,
			AtomicInteger summaries, List<Long> finishedWhenJoined) {
		return new WorkerHarness(process, clock).concurrency(8)
			.handle(HandlerDefinition.of("row", (payload, context) -> {
				rows.incrementAndGet();
				return null;
			}))
			.handle(HandlerDefinition.of("summary", (payload, context) -> {
				summaries.incrementAndGet();
				finishedWhenJoined
					.add((Long) process.column("SELECT count(*) FROM jobs WHERE type = 'row' AND status = 'succeeded'")
						.get(0));
				return null;
			}));
	}

}
