package dev.jobqueue.core.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failed attempt is logged once with its stack trace, and kept (bounded) with the
 * attempt; floods are bounded.
 */
class FailureLoggingTests {

	static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

	final Logger logger = (Logger) LoggerFactory.getLogger(JobWorker.class);

	final ListAppender<ILoggingEvent> logs = new ListAppender<>();

	final AtomicLong nanos = new AtomicLong();

	final OutcomeMapper mapper = new OutcomeMapper(new OutcomeMapperTests.QuotingCodec(), new DefaultErrorClassifier(),
			new RetryPolicy(Duration.ofSeconds(10), Duration.ofMinutes(10), () -> 0.5), 3, this.nanos::get);

	@BeforeEach
	void listen() {
		this.logs.start();
		this.logger.addAppender(this.logs);
	}

	@AfterEach
	void stopListening() {
		this.logger.detachAppender(this.logs);
	}

	@Test
	void aFailedAttemptIsLoggedOnceWithItsStackTraceAndKeepsItBounded() {
		IllegalStateException failure = new IllegalStateException("card declined",
				new java.io.IOException("gateway reset"));

		Completion completion = this.mapper.threw(running(1), failure, NOW);

		assertThat(this.logs.list).hasSize(1);
		ILoggingEvent line = this.logs.list.get(0);
		assertThat(line.getFormattedMessage())
			.contains("Job 7 (mail) attempt 1/3 failed with " + "INTERNAL:IllegalStateException, retried at");
		assertThat(line.getThrowableProxy().getMessage()).isEqualTo("card declined");
		assertThat(completion.errorTrace()).startsWith("java.lang.IllegalStateException: card declined")
			.contains("\tat dev.jobqueue.core.worker.FailureLoggingTests",
					"Caused by: java.io.IOException: gateway reset");
	}

	@Test
	void detailAndTraceOfAHugeFailureAreBounded() {
		IllegalStateException failure = new IllegalStateException("x".repeat(1_000_000));

		Completion completion = this.mapper.threw(running(1), failure, NOW);

		assertThat(completion.errorDetail()).hasSizeLessThanOrEqualTo(FailureTraces.MAX_DETAIL);
		assertThat(completion.errorTrace()).hasSizeLessThanOrEqualTo(FailureTraces.MAX_TRACE);
	}

	@Test
	void tenThousandFailuresOfOneCodeWriteABoundedNumberOfLines() {
		for (int i = 0; i < 10_000; i++) {
			this.mapper.threw(running(1), new IllegalStateException("down " + i), NOW);
			this.nanos.addAndGet(Duration.ofMillis(10).toNanos());
		}
		// 100 s of failures: at most five lines a minute, each saying how many were left
		// out.
		List<ILoggingEvent> lines = this.logs.list;
		assertThat(lines).hasSizeLessThanOrEqualTo(2 * OutcomeMapper.FAILURES_LOGGED_PER_MINUTE);
		assertThat(lines).anySatisfy((line) -> assertThat(line.getFormattedMessage())
			.contains("more failures of this type and code not logged"));

		// Another code is logged at once.
		this.mapper.threw(running(1), new java.io.UncheckedIOException(new java.io.IOException("other")), NOW);
		assertThat(this.logs.list).last()
			.satisfies((line) -> assertThat(line.getFormattedMessage()).contains("UncheckedIOException"));
	}

	private static OutcomeMapper.RunState running(int attempt) {
		return new OutcomeMapper.RunState(new ClaimedJob(7, "mail", "{}", 0, attempt, attempt, 3, 0, NOW, NOW, null),
				null, false, false, true);
	}

}
