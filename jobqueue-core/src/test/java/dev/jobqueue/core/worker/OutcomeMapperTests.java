package dev.jobqueue.core.worker;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.InvalidJobInputException;
import dev.jobqueue.JobFailedException;
import dev.jobqueue.JobSnoozedException;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;

import static org.assertj.core.api.Assertions.assertThat;

/** The outcome mapper alone: no worker, no database, the time given. */
class OutcomeMapperTests {

	static final Instant NOW = Instant.parse("2026-05-01T10:00:00Z");

	static final Duration TIMEOUT = Duration.ofSeconds(30);

	/** Backoff at the low end of the jitter: half of {@code 10s × 2^(attempt-1)}. */
	final RetryPolicy retry = new RetryPolicy(Duration.ofSeconds(10), Duration.ofHours(1), () -> 0.0);

	final OutcomeMapper mapper = new OutcomeMapper(new QuotingCodec(), new DefaultErrorClassifier(), this.retry, 3);

	@Test
	void aReturnedValueSucceedsWithItsJson() {
		Completion completion = this.mapper.returned(running(job(1, 3, 0)), "done", NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.SUCCEEDED);
		assertThat(completion.result()).isEqualTo("\"done\"");
		assertThat(completion.jobId()).isEqualTo(7);
		assertThat(completion.run()).isEqualTo(2);
		assertThat(completion.errorCode()).isNull();
		assertThat(completion.nextRunAt()).isNull();
	}

	@Test
	void nullSucceedsWithoutAResult() {
		Completion completion = this.mapper.returned(running(job(1, 3, 0)), null, NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.SUCCEEDED);
		assertThat(completion.result()).isNull();
	}

	@Test
	void loneSurrogatesInTheResultAreEscapedSoTheTextCanBeStored() {
		Completion completion = this.mapper.returned(running(job(1, 3, 0)), "a\uD800b", NOW);

		assertThat(completion.result()).isEqualTo("\"a\\uD800b\"");
	}

	@Test
	void aResultLargerThanTheLimitFailsAtOnceWithItsOwnCode() {
		OutcomeMapper small = new OutcomeMapper(new QuotingCodec(), new DefaultErrorClassifier(), this.retry, 3,
				Ticker.SYSTEM, 10);
		assertThat(small.returned(running(job(1, 3, 0)), "12345678", NOW).kind()).isEqualTo(Completion.Kind.SUCCEEDED);

		Completion completion = small.returned(running(job(1, 3, 0)), "123456789", NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.FAILED);
		assertThat(completion.errorCode()).isEqualTo(ErrorCodes.INVALID_OUTPUT_RESULT_TOO_LARGE);
		assertThat(completion.errorDetail()).contains("11 bytes").contains("jobqueue.max-result-size (10 bytes)");
		assertThat(completion.result()).isNull();
	}

	@Test
	void aResultThatCannotBeWrittenFailsAtOnceEvenWithAttemptsLeft() {
		Completion completion = this.mapper.returned(running(job(1, 3, 0)), new Unwritable(), NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.FAILED);
		assertThat(completion.errorCode()).isEqualTo(ErrorCodes.INVALID_OUTPUT_RESULT);
		assertThat(completion.errorDetail()).startsWith("The handler's return value cannot be written as JSON: ")
			.contains("no JSON for this");
	}

	@Test
	void aCancelledRunIsCancelledWhateverTheHandlerReturned() {
		Completion completion = this.mapper.returned(cancelled(job(1, 3, 0)), "done", NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.CANCELLED);
		assertThat(completion.errorCode()).isEqualTo(ErrorCodes.CANCELLED_BY_REQUEST);
		assertThat(completion.result()).isNull();
	}

	@Test
	void aCancelledRunIsCancelledWhateverTheHandlerThrew() {
		Completion completion = this.mapper.threw(cancelled(job(1, 3, 0)), new InterruptedException(), NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.CANCELLED);
	}

	@Test
	void aTimedOutRunIsRetriedWithTheTimeoutCodeWhateverTheHandlerReturned() {
		Completion completion = this.mapper.returned(timedOut(job(1, 3, 0)), "done anyway", NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.RETRY);
		assertThat(completion.errorCode()).isEqualTo(ErrorCodes.TIMEOUT_HANDLER);
		assertThat(completion.errorDetail())
			.isEqualTo("The handler ran longer than its timeout of PT30S and was interrupted");
		assertThat(completion.nextRunAt()).isEqualTo(NOW.plusSeconds(5));
		assertThat(completion.result()).isNull();
	}

	@Test
	void aTimedOutRunIsRecordedAsATimeoutWhateverTheHandlerThrew() {
		Completion completion = this.mapper.threw(timedOut(job(1, 3, 0)), new InterruptedException("sleep"), NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.RETRY);
		assertThat(completion.errorCode()).isEqualTo(ErrorCodes.TIMEOUT_HANDLER);
	}

	@Test
	void aTimeoutOnTheLastAttemptFails() {
		Completion completion = this.mapper.threw(timedOut(job(3, 3, 0)), new InterruptedException(), NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.FAILED);
		assertThat(completion.errorCode()).isEqualTo(ErrorCodes.TIMEOUT_HANDLER);
		assertThat(completion.nextRunAt()).isNull();
	}

	@Test
	void aTimedOutRunOfANonRepeatableHandlerFailsForGoodWithItsOwnCode() {
		OutcomeMapper.RunState notRepeatable = new OutcomeMapper.RunState(job(1, 3, 0), TIMEOUT, false, true, false);

		for (Completion completion : List.of(this.mapper.threw(notRepeatable, new InterruptedException(), NOW),
				this.mapper.returned(notRepeatable, "charged", NOW))) {
			assertThat(completion.kind()).isEqualTo(Completion.Kind.FAILED);
			assertThat(completion.errorCode()).isEqualTo(ErrorCodes.TIMEOUT_NOT_REPEATABLE);
			assertThat(completion.nextRunAt()).isNull();
		}
	}

	@Test
	void aCancelWinsOverATimeout() {
		OutcomeMapper.RunState both = new OutcomeMapper.RunState(job(1, 3, 0), TIMEOUT, true, true, true);

		assertThat(this.mapper.returned(both, "x", NOW).kind()).isEqualTo(Completion.Kind.CANCELLED);
		assertThat(this.mapper.threw(both, new IllegalStateException(), NOW).kind())
			.isEqualTo(Completion.Kind.CANCELLED);
	}

	@Test
	void aSnoozeGivesTheAttemptBackUntilLater() {
		Completion completion = this.mapper.threw(running(job(1, 3, 2)), new JobSnoozedException(Duration.ofMinutes(5)),
				NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.SNOOZED);
		assertThat(completion.nextRunAt()).isEqualTo(NOW.plus(Duration.ofMinutes(5)));
		assertThat(completion.errorCode()).isNull();
	}

	@Test
	void aSnoozeOnTheLastAttemptIsStillASnooze() {
		Completion completion = this.mapper.threw(running(job(3, 3, 0)), new JobSnoozedException(Duration.ofSeconds(1)),
				NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.SNOOZED);
	}

	@Test
	void aSnoozeBeyondTheLimitFailsForGoodEvenWithAttemptsLeft() {
		Completion completion = this.mapper.threw(running(job(1, 3, 3)), new JobSnoozedException(Duration.ofMinutes(5)),
				NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.FAILED);
		assertThat(completion.errorCode()).isEqualTo(ErrorCodes.SNOOZE_LIMIT_REACHED);
		assertThat(completion.errorDetail())
			.isEqualTo("The job snoozed 3 times, the most jobqueue.worker.max-snoozes allows");
	}

	@Test
	void noSnoozeAllowedFailsTheFirstOne() {
		OutcomeMapper strict = new OutcomeMapper(new QuotingCodec(), new DefaultErrorClassifier(), this.retry, 0);

		Completion completion = strict.threw(running(job(1, 3, 0)), new JobSnoozedException(Duration.ofSeconds(1)),
				NOW);

		assertThat(completion.errorCode()).isEqualTo(ErrorCodes.SNOOZE_LIMIT_REACHED);
	}

	@Test
	void aRetryableFailureWithAttemptsLeftIsRetriedAfterTheBackoffOfItsAttempt() {
		JobFailedException failure = new JobFailedException("DEPENDENCY:GEOCODER", "503", true);

		assertThat(this.mapper.threw(running(job(1, 5, 0)), failure, NOW).nextRunAt()).isEqualTo(NOW.plusSeconds(5));
		assertThat(this.mapper.threw(running(job(2, 5, 0)), failure, NOW).nextRunAt()).isEqualTo(NOW.plusSeconds(10));
		Completion third = this.mapper.threw(running(job(3, 5, 0)), failure, NOW);
		assertThat(third.kind()).isEqualTo(Completion.Kind.RETRY);
		assertThat(third.errorCode()).isEqualTo("DEPENDENCY:GEOCODER");
		assertThat(third.errorDetail()).isEqualTo("dev.jobqueue.JobFailedException: 503");
		assertThat(third.nextRunAt()).isEqualTo(NOW.plusSeconds(20));
	}

	@Test
	void aRetryableFailureOnTheLastAttemptFails() {
		Completion completion = this.mapper.threw(running(job(3, 3, 0)), new IllegalStateException("boom"), NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.FAILED);
		assertThat(completion.errorCode()).isEqualTo("INTERNAL:IllegalStateException");
		assertThat(completion.nextRunAt()).isNull();
	}

	@Test
	void aFailureThatIsNotRetryableFailsAtOnce() {
		Completion completion = this.mapper.threw(running(job(1, 3, 0)), new InvalidJobInputException("no name"), NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.FAILED);
		assertThat(completion.errorCode()).isEqualTo("INVALID_INPUT:INVALID");
	}

	@Test
	void theClassifierIsAskedWithTheJobType() {
		List<String> asked = new ArrayList<>();
		ErrorClassifier classifier = (type, failure) -> {
			asked.add(type + " " + failure.getMessage());
			return new ErrorClassification("DEPENDENCY:MAIL", "mail server down", false);
		};
		OutcomeMapper mapper = new OutcomeMapper(new QuotingCodec(), classifier, this.retry, 3);

		Completion completion = mapper.threw(running(job(1, 3, 0)), new IllegalStateException("smtp"), NOW);

		assertThat(asked).containsExactly("mail smtp");
		assertThat(completion.kind()).isEqualTo(Completion.Kind.FAILED);
		assertThat(completion.errorCode()).isEqualTo("DEPENDENCY:MAIL");
		assertThat(completion.errorDetail()).isEqualTo("mail server down");
	}

	@Test
	void aClassifierThatThrowsRecordsARetryableInternalError() {
		ErrorClassifier broken = (type, failure) -> {
			throw new IllegalStateException("classifier bug");
		};
		OutcomeMapper mapper = new OutcomeMapper(new QuotingCodec(), broken, this.retry, 3);

		Completion completion = mapper.threw(running(job(1, 3, 0)), new IllegalArgumentException("bad"), NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.RETRY);
		assertThat(completion.errorCode()).isEqualTo(ErrorCodes.INTERNAL_CLASSIFIER);
		assertThat(completion.errorDetail()).isEqualTo("java.lang.IllegalArgumentException: bad");
	}

	@Test
	void errorsAreClassifiedToo() {
		Completion completion = this.mapper.threw(running(job(1, 3, 0)), new StackOverflowError(), NOW);

		assertThat(completion.kind()).isEqualTo(Completion.Kind.RETRY);
		assertThat(completion.errorCode()).isEqualTo(ErrorCodes.INTERNAL_STACK_OVERFLOW);
	}

	@Test
	void aLongDetailIsCut() {
		Completion completion = this.mapper.threw(running(job(1, 3, 0)), new IllegalStateException("x".repeat(2_000)),
				NOW);

		assertThat(completion.errorDetail()).hasSize(ErrorClassification.MAX_DETAIL_LENGTH).endsWith("…");
	}

	@Test
	void failureUsesTheRetryPolicyOnlyWhileAttemptsAreLeft() {
		ErrorClassification retryable = new ErrorClassification("DEPENDENCY:X", "down", true);

		assertThat(this.mapper.failure(job(1, 2, 0), retryable, NOW).kind()).isEqualTo(Completion.Kind.RETRY);
		assertThat(this.mapper.failure(job(2, 2, 0), retryable, NOW).kind()).isEqualTo(Completion.Kind.FAILED);
		assertThat(this.mapper.failure(job(1, 1, 0), retryable, NOW).kind()).isEqualTo(Completion.Kind.FAILED);
	}

	private static ClaimedJob job(int attempt, int maxAttempts, int snoozes) {
		return new ClaimedJob(7, "mail", "{}", 0, 2, attempt, maxAttempts, snoozes, NOW.minusSeconds(60),
				NOW.minusSeconds(120), null);
	}

	private static OutcomeMapper.RunState running(ClaimedJob job) {
		return new OutcomeMapper.RunState(job, TIMEOUT, false, false, true);
	}

	private static OutcomeMapper.RunState cancelled(ClaimedJob job) {
		return new OutcomeMapper.RunState(job, TIMEOUT, true, false, true);
	}

	private static OutcomeMapper.RunState timedOut(ClaimedJob job) {
		return new OutcomeMapper.RunState(job, TIMEOUT, false, true, true);
	}

	/** A value the codec cannot write. */
	static final class Unwritable {

	}

	/** Writes a value as a JSON string of its text; fails for {@link Unwritable}. */
	static final class QuotingCodec implements PayloadCodec {

		@Override
		public String toJson(Object value) {
			if (value instanceof Unwritable) {
				throw new IllegalArgumentException("no JSON for this");
			}
			return "\"" + value + "\"";
		}

		@Override
		public Object fromJson(String json, Type type) {
			throw new UnsupportedOperationException();
		}

	}

}
