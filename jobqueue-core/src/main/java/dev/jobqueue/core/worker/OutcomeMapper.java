package dev.jobqueue.core.worker;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.JobSnoozedException;
import dev.jobqueue.core.JsonText;
import dev.jobqueue.core.LogThrottle;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.Ticker;
import dev.jobqueue.core.store.ClaimedJob;
import dev.jobqueue.core.store.Completion;

/**
 * Turns the way a run ended into the {@link Completion} to write. No state and no clock:
 * the time comes in as an argument, so every rule can be tested without a worker or a
 * database. In order:
 *
 * <ol>
 * <li>A run whose job was cancelled while it ran is cancelled, whatever the handler
 * did.</li>
 * <li>A run past its timeout fails with {@link ErrorCodes#TIMEOUT_HANDLER}, whatever the
 * handler did (it was interrupted, so what it returned or threw is likely a consequence);
 * retried while attempts are left, unless the handler is not repeatable: then it fails
 * for good with {@link ErrorCodes#TIMEOUT_NOT_REPEATABLE}, since the interrupted run may
 * have done part of its work.</li>
 * <li>A return value is written as JSON; one that cannot be fails the run with
 * {@link ErrorCodes#INVALID_OUTPUT_RESULT}, and one larger than the largest result with
 * {@link ErrorCodes#INVALID_OUTPUT_RESULT_TOO_LARGE}; neither is retried.</li>
 * <li>A snooze puts the job back without counting the attempt, until the job snoozed
 * {@code maxSnoozes} times: then it fails with {@link ErrorCodes#SNOOZE_LIMIT_REACHED},
 * not retried.</li>
 * <li>Any other failure gets its code from the {@link ErrorClassifier}
 * ({@link ErrorCodes#INTERNAL_CLASSIFIER} if the classifier itself throws). A retryable
 * failure with attempts left is retried after the {@link RetryPolicy}'s backoff; any
 * other fails the job.</li>
 * </ol>
 */
final class OutcomeMapper {

	// The worker's log category: users tune the logging of the worker, whatever class of
	// it writes.
	private static final Logger logger = LoggerFactory.getLogger(JobWorker.class);

	/**
	 * Failed attempts logged per job type and error code and minute; the rest are counted
	 * in the next line.
	 */
	static final int FAILURES_LOGGED_PER_MINUTE = 5;

	private final PayloadCodec codec;

	private final ErrorClassifier classifier;

	private final RetryPolicy retryPolicy;

	private final int maxSnoozes;

	private final LogThrottle failureLog;

	private final long maxResultBytes;

	OutcomeMapper(PayloadCodec codec, ErrorClassifier classifier, RetryPolicy retryPolicy, int maxSnoozes) {
		this(codec, classifier, retryPolicy, maxSnoozes, Ticker.SYSTEM);
	}

	OutcomeMapper(PayloadCodec codec, ErrorClassifier classifier, RetryPolicy retryPolicy, int maxSnoozes,
			Ticker ticker) {
		this(codec, classifier, retryPolicy, maxSnoozes, ticker, WorkerSettings.DEFAULT_MAX_RESULT_BYTES);
	}

	OutcomeMapper(PayloadCodec codec, ErrorClassifier classifier, RetryPolicy retryPolicy, int maxSnoozes,
			Ticker ticker, long maxResultBytes) {
		this.maxResultBytes = maxResultBytes;
		this.failureLog = new LogThrottle(FAILURES_LOGGED_PER_MINUTE, java.time.Duration.ofMinutes(1), ticker);
		this.codec = Objects.requireNonNull(codec, "'codec' must not be null");
		this.classifier = Objects.requireNonNull(classifier, "'classifier' must not be null");
		this.retryPolicy = Objects.requireNonNull(retryPolicy, "'retryPolicy' must not be null");
		this.maxSnoozes = maxSnoozes;
	}

	/**
	 * How a run stands as its handler ends.
	 *
	 * @param job the job it runs
	 * @param timeout the handler's timeout, or {@code null}
	 * @param cancelRequested whether the job was cancelled while it ran
	 * @param timedOut whether the run passed its timeout and was interrupted
	 * @param repeatable whether the handler may run the job again after an interrupted
	 * run
	 */
	record RunState(ClaimedJob job, Duration timeout, boolean cancelRequested, boolean timedOut, boolean repeatable) {

	}

	/** The handler returned {@code result} (may be {@code null}). */
	Completion returned(RunState run, Object result, Instant now) {
		Completion interrupted = interrupted(run, now);
		if (interrupted != null) {
			return interrupted;
		}
		String json;
		try {
			json = (result != null) ? JsonText.escapeLoneSurrogates(this.codec.toJson(result)) : null;
		}
		catch (RuntimeException ex) {
			return failure(run.job(), new ErrorClassification(ErrorCodes.INVALID_OUTPUT_RESULT,
					"The handler's return value cannot be written as JSON: " + ex.getMessage(), false), now);
		}
		if (json != null) {
			long size = (json.length() * 3L > this.maxResultBytes) ? json.getBytes(StandardCharsets.UTF_8).length
					: json.length();
			if (size > this.maxResultBytes) {
				return failure(run.job(), new ErrorClassification(ErrorCodes.INVALID_OUTPUT_RESULT_TOO_LARGE,
						"The handler's return value is " + size + " bytes as JSON, more than jobqueue.max-result-size ("
								+ this.maxResultBytes + " bytes). Keep large results in a file or object store and "
								+ "return a reference to them, or raise the limit.",
						false), now);
			}
		}
		return Completion.succeeded(run.job(), json);
	}

	/** The handler (or something around it) threw {@code failure}. */
	Completion threw(RunState run, Throwable failure, Instant now) {
		Completion interrupted = interrupted(run, now);
		if (interrupted != null) {
			return interrupted;
		}
		ClaimedJob job = run.job();
		if (failure instanceof JobSnoozedException snooze) {
			if (job.snoozes() >= this.maxSnoozes) {
				return failure(job, new ErrorClassification(ErrorCodes.SNOOZE_LIMIT_REACHED,
						"The job snoozed " + job.snoozes() + " times, the most jobqueue.worker.max-snoozes allows",
						false), now);
			}
			return Completion.snoozed(job, now.plus(snooze.getDelay()));
		}
		ErrorClassification error;
		try {
			error = this.classifier.classify(job.type(), failure);
		}
		catch (RuntimeException ex) {
			logger.warn("Error classifier failed on {}; recording {}", failure, ErrorCodes.INTERNAL_CLASSIFIER, ex);
			error = new ErrorClassification(ErrorCodes.INTERNAL_CLASSIFIER, DefaultErrorClassifier.describe(failure),
					true);
		}
		Completion completion = failure(job, error, now);
		logFailure(job, completion, failure);
		return completion.withErrorTrace(FailureTraces.of(failure));
	}

	/**
	 * Logs a failed attempt once, with its stack trace, at most a few times a minute per
	 * type and code: a flood of one failure writes a bounded number of lines, each saying
	 * how many were left out.
	 */
	private void logFailure(ClaimedJob job, Completion completion, Throwable failure) {
		long suppressed = this.failureLog.admit(job.type() + "|" + completion.errorCode());
		if (suppressed < 0) {
			return;
		}
		String left = (completion.kind() == Completion.Kind.RETRY) ? "retried at " + completion.nextRunAt()
				: "failed for good";
		String more = (suppressed > 0) ? " (" + suppressed + " more failures of this type and code not logged)" : "";
		if (failure instanceof Exception) {
			logger.warn("Job {} ({}) attempt {}/{} failed with {}, {}{}", job.id(), job.type(), job.attempt(),
					job.maxAttempts(), completion.errorCode(), left, more, failure);
		}
		else {
			logger.error("Job {} ({}) attempt {}/{} threw {}, {}{}", job.id(), job.type(), job.attempt(),
					job.maxAttempts(), completion.errorCode(), left, more, failure);
		}
	}

	/**
	 * A failed attempt: retried after the backoff while retryable with attempts left,
	 * else failed for good. The detail is cut to {@value FailureTraces#MAX_DETAIL}
	 * characters: it is stored on the job and on every attempt.
	 */
	Completion failure(ClaimedJob job, ErrorClassification error, Instant now) {
		String detail = FailureTraces.bounded(error.detail(), FailureTraces.MAX_DETAIL);
		if (error.retryable() && job.attempt() < job.maxAttempts()) {
			return Completion.retry(job, error.code(), detail, now.plus(this.retryPolicy.backoff(job.attempt())));
		}
		return Completion.failed(job, error.code(), detail);
	}

	/** The outcome a cancel or a timeout imposes, or {@code null} if neither happened. */
	private Completion interrupted(RunState run, Instant now) {
		if (run.cancelRequested()) {
			return Completion.cancelled(run.job());
		}
		if (run.timedOut() && !run.repeatable()) {
			return Completion.failed(run.job(), ErrorCodes.TIMEOUT_NOT_REPEATABLE,
					"The handler ran longer than its " + "timeout of " + run.timeout()
							+ " and was interrupted; it is not repeatable, so the job is not "
							+ "run again: check whether the interrupted run did its work");
		}
		if (run.timedOut()) {
			return failure(run.job(), new ErrorClassification(ErrorCodes.TIMEOUT_HANDLER,
					"The handler ran longer than its timeout of " + run.timeout() + " and was interrupted", true), now);
		}
		return null;
	}

}
