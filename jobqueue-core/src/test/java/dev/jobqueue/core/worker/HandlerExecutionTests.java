package dev.jobqueue.core.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;

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
