package dev.jobqueue.test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;

import dev.jobqueue.Job;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobStatus;
import dev.jobqueue.JobStep;
import dev.jobqueue.PausedType;
import dev.jobqueue.autoconfigure.JobQueueClock;
import dev.jobqueue.autoconfigure.QueueScheduler;
import dev.jobqueue.autoconfigure.QueueWorker;
import dev.jobqueue.core.CallerThreadExecutor;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.LocalSignals;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.QueueInsights;
import dev.jobqueue.core.store.QueueInsights.JobQuery;
import dev.jobqueue.core.store.QueueInsights.JobSummary;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.test.AutoConfigureJobQueue.RunJobs;

/**
 * Drives the queue of a test: runs due jobs on the test thread, moves the queue's clock,
 * waits until the queue is idle. Declared by {@link AutoConfigureJobQueue}; inject it
 * into the test.
 *
 * <pre class="code">
 * long id = jobQueue.enqueue("thumbnail", request);
 * List&lt;Job&gt; ran = tester.runDueJobs();
 * tester.advanceClock(Duration.ofMinutes(5)); // past the retry backoff
 * tester.runDueJobs();
 * </pre>
 */
public class JobQueueTester implements ApplicationListener<ContextClosedEvent> {

	/**
	 * Rounds of {@link #runDueJobs()} before it gives up on jobs that keep coming due.
	 */
	static final int MAX_ROUNDS = 1000;

	private static final int PAGE = 200;

	private final RunJobs runJobs;

	private final ObjectProvider<JobQueue> jobQueue;

	private final ObjectProvider<QueueWorker> queueWorker;

	private final ObjectProvider<QueueScheduler> queueScheduler;

	private final ObjectProvider<QueueInsights> insights;

	private final ObjectProvider<HandlerRegistry> handlers;

	private final ObjectProvider<LocalSignals> signals;

	private final ObjectProvider<TestQueueClock> clock;

	private final ObjectProvider<JobQueueClock> queueClock;

	private final RunRecorder recorder;

	private final ObjectProvider<JobStore> store;

	private @Nullable JobWorker worker;

	JobQueueTester(RunJobs runJobs, ObjectProvider<JobQueue> jobQueue, ObjectProvider<QueueWorker> queueWorker,
			ObjectProvider<QueueScheduler> queueScheduler, ObjectProvider<QueueInsights> insights,
			ObjectProvider<HandlerRegistry> handlers, ObjectProvider<LocalSignals> signals,
			ObjectProvider<TestQueueClock> clock, ObjectProvider<JobQueueClock> queueClock, RunRecorder recorder,
			ObjectProvider<JobStore> store) {
		this.store = store;
		this.runJobs = runJobs;
		this.jobQueue = jobQueue;
		this.queueWorker = queueWorker;
		this.queueScheduler = queueScheduler;
		this.insights = insights;
		this.handlers = handlers;
		this.signals = signals;
		this.clock = clock;
		this.queueClock = queueClock;
		this.recorder = recorder;
	}

	/**
	 * Fires the schedules that are due and runs every due job on the calling thread,
	 * round after round, until none is due: jobs that the handlers enqueue (due now) run
	 * too; jobs scheduled for later, or waiting out a retry backoff, wait until the clock
	 * is moved past their time.
	 * @return the jobs that ran, as stored once the call is done (a job that failed and
	 * will be retried is {@code PENDING} with its error code), in the order they first
	 * ran
	 * @throws IllegalStateException if the test runs jobs in the background, the context
	 * has no queue or no worker, or jobs keep coming due for {@value #MAX_ROUNDS} rounds
	 */
	public synchronized List<Job> runDueJobs() {
		if (this.runJobs == RunJobs.IN_BACKGROUND) {
			throw new IllegalStateException("runDueJobs() runs jobs on the test thread, but this test runs them on "
					+ "the application's worker threads (@AutoConfigureJobQueue(runJobs = IN_BACKGROUND)). Wait for "
					+ "them with awaitIdle(timeout), or drop runJobs = IN_BACKGROUND.");
		}
		JobWorker worker = worker();
		QueueScheduler scheduler = this.queueScheduler.getIfAvailable();
		List<Long> ran = new ArrayList<>();
		this.recorder.record(ran);
		try {
			for (int round = 0; round < MAX_ROUNDS; round++) {
				int fired = (scheduler != null) ? scheduler.scheduler().fireDue().size() : 0;
				int claimed = worker.pollOnce();
				if (claimed == 0 && fired == 0) {
					return found(ran);
				}
			}
		}
		finally {
			this.recorder.stop();
		}
		throw new IllegalStateException("Jobs kept coming due for " + MAX_ROUNDS + " rounds of runDueJobs(): a "
				+ "handler enqueues a job that is due at once each time it runs, or snoozes without a delay. Jobs "
				+ "run in the last rounds: " + ran.subList(Math.max(0, ran.size() - 10), ran.size()));
	}

	/**
	 * The durable steps of a job whose work ran ({@link dev.jobqueue.JobContext#step}),
	 * in the order they ran, over every run of the job in this context: a step that ran
	 * twice is listed twice. Steps whose recorded result was returned instead are in
	 * {@link #stepsReplayed(long)}.
	 */
	public List<String> stepsRun(long jobId) {
		return this.recorder.steps(jobId, false);
	}

	/**
	 * The durable steps of a job that returned a result recorded by an earlier run, in
	 * the order they were called.
	 */
	public List<String> stepsReplayed(long jobId) {
		return this.recorder.steps(jobId, true);
	}

	/**
	 * The durable steps recorded for a job, as stored: result, run, attempt and times (on
	 * the test's clock).
	 * @throws IllegalStateException if the context has no queue
	 */
	public List<JobStep> recordedSteps(long jobId) {
		JobStore store = this.store.getIfAvailable();
		if (store == null) {
			throw new IllegalStateException("The context has no job queue: is jobqueue.enabled=false?");
		}
		return store.steps(jobId);
	}

	/** The queue's time now. */
	public Instant now() {
		return clock().instant();
	}

	/**
	 * Moves the queue's clock forward: jobs scheduled for then, retry backoffs ending by
	 * then and cron ticks up to then come due. Runs nothing itself; call
	 * {@link #runDueJobs()} (or {@link #awaitIdle(Duration)}). Retry backoffs are
	 * jittered: attempt {@code n} waits between half and all of
	 * {@code min(max-backoff, initial-backoff × 2^(n-1))}, so move past the whole of it.
	 * @return the queue's new time
	 * @throws IllegalArgumentException if {@code duration} is negative: the clock only
	 * moves forward
	 */
	public Instant advanceClock(Duration duration) {
		Instant now = clock().advance(duration);
		wakeWorker();
		return now;
	}

	/**
	 * Moves the queue's clock forward to {@code instant}; see
	 * {@link #advanceClock(Duration)}.
	 * @throws IllegalArgumentException if {@code instant} is before the queue's time
	 */
	public Instant advanceClockTo(Instant instant) {
		Instant now = clock().advanceTo(instant);
		wakeWorker();
		return now;
	}

	/**
	 * Waits until the application's worker has run every due job: none due of a type this
	 * application handles (and has not paused), none running.
	 * @throws IllegalStateException if jobs run on the test thread in this test (nothing
	 * would ever run them)
	 * @throws AssertionError if the queue is not idle within {@code timeout}, naming what
	 * is left
	 */
	public void awaitIdle(Duration timeout) {
		if (this.runJobs == RunJobs.ON_TEST_THREAD) {
			throw new IllegalStateException("awaitIdle(timeout) waits for the application's worker threads, but in "
					+ "this test jobs run only on the test thread: call runDueJobs() instead, or declare "
					+ "@AutoConfigureJobQueue(runJobs = IN_BACKGROUND) to keep the worker running.");
		}
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			List<JobSummary> busy = busyJobs(1);
			if (busy.isEmpty()) {
				return;
			}
			if (System.nanoTime() - deadline >= 0) {
				List<JobSummary> left = busyJobs(10);
				throw new AssertionError("The queue was not idle after " + timeout + "; still due or running: "
						+ left.stream()
							.map((job) -> "job " + job.id() + " '" + job.type() + "' " + job.status()
									+ ((job.errorCode() != null) ? " (" + job.errorCode() + ")" : ""))
							.collect(Collectors.joining(", ")));
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
		}
	}

	/** Whether no job of a type this application handles is due or running. */
	public boolean isIdle() {
		return busyJobs(1).isEmpty();
	}

	@Override
	public synchronized void onApplicationEvent(ContextClosedEvent event) {
		JobWorker current = this.worker;
		if (current != null) {
			this.worker = null;
			current.stop();
		}
	}

	private List<JobSummary> busyJobs(int limit) {
		QueueInsights queueInsights = require(this.insights.getIfAvailable(), "QueueInsights");
		// Due pending jobs first, running ones after: a job claimed between the two reads
		// is then seen running,
		// where the other order could miss it (no longer pending, not yet running when
		// running jobs were read).
		List<JobSummary> busy = new ArrayList<>();
		Instant now = now();
		Set<String> paused = require(this.jobQueue.getIfAvailable(), "JobQueue").pausedTypes()
			.stream()
			.map(PausedType::type)
			.collect(Collectors.toSet());
		for (String type : require(this.handlers.getIfAvailable(), "HandlerRegistry").types()) {
			if (paused.contains(type)) {
				continue;
			}
			Long before = null;
			do {
				QueueInsights.JobPage page = queueInsights
					.jobs(new JobQuery(JobStatus.PENDING, type, null, before, PAGE));
				for (JobSummary job : page.jobs()) {
					if (!job.runAt().isAfter(now) && busy.size() < limit) {
						busy.add(job);
					}
				}
				before = page.nextBefore();
			}
			while (before != null && busy.size() < limit);
		}
		if (busy.size() < limit) {
			busy.addAll(
					queueInsights.jobs(new JobQuery(JobStatus.RUNNING, null, null, null, limit - busy.size())).jobs());
		}
		return busy;
	}

	private List<Job> found(List<Long> ran) {
		JobQueue queue = require(this.jobQueue.getIfAvailable(), "JobQueue");
		List<Job> jobs = new ArrayList<>();
		for (Long id : new LinkedHashSet<>(ran)) {
			queue.find(id).ifPresent(jobs::add);
		}
		return jobs;
	}

	private JobWorker worker() {
		JobWorker current = this.worker;
		if (current == null) {
			QueueWorker node = this.queueWorker.getIfAvailable();
			if (node == null) {
				require(this.jobQueue.getIfAvailable(), "JobQueue");
				throw new IllegalStateException("runDueJobs() needs the queue's worker, and this context has none: "
						+ "jobqueue.worker.enabled=false (an enqueue-only node), or a QueueWorker excluded. Remove that "
						+ "setting from the test's configuration.");
			}
			current = node.newWorker(new CallerThreadExecutor());
			this.worker = current;
		}
		return current;
	}

	private TestQueueClock clock() {
		TestQueueClock testClock = require(this.clock.getIfAvailable(), "TestQueueClock");
		JobQueueClock queueTime = require(this.queueClock.getIfAvailable(), "JobQueueClock");
		if (queueTime.clock() != testClock) {
			throw new IllegalStateException("The queue in this test reads a JobQueueClock of the test's own "
					+ "configuration, not the TestQueueClock, so the tester cannot move the queue's time. Remove that "
					+ "JobQueueClock bean from the test's configuration, or build it on the TestQueueClock bean: "
					+ "new JobQueueClock(testQueueClock).");
		}
		return testClock;
	}

	private void wakeWorker() {
		LocalSignals local = this.signals.getIfAvailable();
		if (local != null) {
			local.jobsEnqueued();
		}
	}

	private static <T> T require(@Nullable T bean, String what) {
		if (bean == null) {
			throw new IllegalStateException("There is no job queue in this test's context (no " + what + " bean): "
					+ "jobqueue.enabled=false is set, the queue's auto-configuration is excluded, or the test slice "
					+ "does not include it. Use @SpringBootTest (or add @ImportAutoConfiguration(QueueAutoConfiguration"
					+ ".class) to the slice), and remove jobqueue.enabled=false from the test's configuration.");
		}
		return bean;
	}

}
