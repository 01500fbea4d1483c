package dev.jobqueue.core.worker;

import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.RateLimit;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.JobStore;

import static org.assertj.core.api.Assertions.assertThat;

class HandlerExecutionTests {

	private static final Instant NOW = Instant.parse("2026-05-01T10:00:00Z");

	private final AtomicInteger handlerCalls = new AtomicInteger();

	private final OutcomeMapper outcomes = new OutcomeMapper(new OutcomeMapperTests.QuotingCodec(),
			new DefaultErrorClassifier(), new RetryPolicy(Duration.ofSeconds(10), Duration.ofHours(1), () -> 0.0), 3);

	@Test
	void anInterceptorThatDoesNotRunTheJobIsPassedByAndTheHandlerRunsOnce() {
		Completion completion = execution((job, run) -> null).execute(run());

		assertThat(this.handlerCalls).hasValue(1);
		assertThat(completion.kind()).isEqualTo(Completion.Kind.SUCCEEDED);
	}

	@Test
	void anInterceptorThatFailsAfterTheRunCannotChangeItsOutcome() {
		Completion completion = execution((job, run) -> {
			run.call();
			throw new IllegalStateException("after the run");
		}).execute(run());

		assertThat(this.handlerCalls).hasValue(1);
		assertThat(completion.kind()).isEqualTo(Completion.Kind.SUCCEEDED);
	}

	@Test
	void aRunCutOffBeforeItBeganIsHandedBackWithoutItsHandler() {
		JobRun run = run();
		assertThat(run.cutOff()).isEqualTo(JobRun.CutOff.NOT_STARTED);

		Completion completion = execution(RunInterceptor.NONE).execute(run);

		assertThat(this.handlerCalls).hasValue(0);
		assertThat(completion.kind()).isEqualTo(Completion.Kind.HANDED_BACK);
	}

	@Test
	void aRunCancelledBeforeItsThreadTookItIsCancelledWithoutItsHandler() {
		JobRun run = run();
		run.markCancelRequested();

		Completion completion = execution(RunInterceptor.NONE).execute(run);

		assertThat(this.handlerCalls).hasValue(0);
		assertThat(completion.kind()).isEqualTo(Completion.Kind.CANCELLED);
	}

	@Test
	void aRateLimitedRunRecordsItsStartInTheStoreJustBeforeItsHandlerBegins() {
		List<String> calls = new ArrayList<>();
		JobRun run = rateLimitedRun(calls);

		Completion completion = execution(RunInterceptor.NONE).execute(run);
		run.finish(completion);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.SUCCEEDED);
		assertThat(calls).containsExactly(
				"recordHandlerStart job 7 claimed " + NOW + " lease until " + NOW.plusSeconds(30) + " at " + NOW,
				"handler");
	}

	@Test
	void aRateLimitedRunThatNeverBeganFreesItsPermitAndOneWhoseLeaseWasLostDoesNot() {
		List<String> calls = new ArrayList<>();
		JobRun cancelled = rateLimitedRun(calls);
		cancelled.markCancelRequested();
		cancelled.finish(execution(RunInterceptor.NONE).execute(cancelled));
		assertThat(calls)
			.containsExactly("dropUnstartedStart job 7 claimed " + NOW + " lease until " + NOW.plusSeconds(30));

		calls.clear();
		JobRun lost = rateLimitedRun(calls);
		lost.leaseLost = true;
		lost.finish(execution(RunInterceptor.NONE).execute(lost));
		assertThat(calls).as("another worker's claim of the job may hold the permit now").isEmpty();
	}

	/** A run of a rate-limited type whose store records what the run asks of it. */
	private JobRun rateLimitedRun(List<String> calls) {
		ClaimedJob job = new ClaimedJob(7, "t", "{}", 0, 1, 1, 3, 0, NOW, NOW, null);
		HandlerDefinition handler = new HandlerDefinition("t", (payload, context) -> {
			calls.add("handler");
			return "done";
		}, 3, null, 0, true, "t", 0, new FlowControl(RateLimit.parse("5/1s"), null, 0, false, true));
		JobStore store = (JobStore) Proxy.newProxyInstance(JobStore.class.getClassLoader(),
				new Class<?>[] { JobStore.class }, (proxy, method, args) -> {
					switch (method.getName()) {
						case "recordHandlerStart" ->
							calls.add("recordHandlerStart job " + ((ClaimedJob) args[0]).id() + " claimed " + args[1]
									+ " lease until " + args[2] + " at " + ((InstantSource) args[3]).instant());
						case "dropUnstartedStart" -> calls.add("dropUnstartedStart job " + ((ClaimedJob) args[0]).id()
								+ " claimed " + args[1] + " lease until " + args[2]);
						default -> throw new UnsupportedOperationException(method.getName());
					}
					return null;
				});
		return new JobRun(job, handler, NOW, store, "w", Clock.fixed(NOW, ZoneOffset.UTC), Ticker.SYSTEM,
				new WorkerSettings("w", 2, Duration.ofMillis(50), Duration.ofSeconds(30), Duration.ofSeconds(5), 10));
	}

	private HandlerExecution execution(RunInterceptor interceptor) {
		return new HandlerExecution(interceptor, this.outcomes, Clock.fixed(NOW, ZoneOffset.UTC));
	}

	private JobRun run() {
		ClaimedJob job = new ClaimedJob(7, "t", "{}", 0, 1, 1, 3, 0, NOW, NOW, null);
		HandlerDefinition handler = HandlerDefinition.of("t", (payload, context) -> {
			this.handlerCalls.incrementAndGet();
			return "done";
		});
		return new JobRun(job, handler, NOW, null, "w", Clock.fixed(NOW, ZoneOffset.UTC), Ticker.SYSTEM,
				new WorkerSettings("w", 2, Duration.ofMillis(50), Duration.ofSeconds(30), Duration.ofSeconds(5), 10));
	}

}
