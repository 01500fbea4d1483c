package dev.jobqueue.core.worker;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.function.Supplier;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.JobFailedException;
import dev.jobqueue.JobStep;
import dev.jobqueue.core.JsonText;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.StepTransactions;

/**
 * Runs the durable steps of a worker's runs ({@link dev.jobqueue.JobContext#step}): the
 * checks of a step's name, replay of a recorded result, the work, and its record fenced
 * on the run (in the step's transaction for a transactional step). What one run has
 * recorded and used is kept on its {@link RunSteps}.
 */
final class DurableSteps {

	private final PayloadCodec codec;

	private final StepTransactions transactions;

	private final WorkerListener listener;

	private final long maxResultBytes;

	DurableSteps(PayloadCodec codec, StepTransactions transactions, WorkerListener listener, long maxResultBytes) {
		this.codec = codec;
		this.transactions = transactions;
		this.listener = listener;
		this.maxResultBytes = maxResultBytes;
	}

	DurableSteps withTransactions(StepTransactions transactions) {
		return new DurableSteps(this.codec, transactions, this.listener, this.maxResultBytes);
	}

	<T> T run(JobRun run, String name, Class<T> type, Supplier<? extends T> work, boolean transactional) {
		checkName(run, name);
		run.recordedSteps.use(name);
		JobStep recorded = run.recordedSteps.recorded(name);
		if (recorded != null) {
			T result = read(run, name, recorded.result(), type);
			this.listener.stepDone(run.job, name, true);
			return result;
		}
		Instant startedAt = run.now();
		T result;
		if (transactional) {
			result = inTransaction(run, name, () -> {
				T value = work.get();
				record(run, name, value, type, startedAt, true);
				return value;
			});
		}
		else {
			result = work.get();
			record(run, name, result, type, startedAt, false);
		}
		this.listener.stepDone(run.job, name, false);
		return result;
	}

	private <T> T inTransaction(JobRun run, String name, Supplier<T> work) {
		try {
			return this.transactions.inTransaction(work);
		}
		catch (StepTransactions.Unavailable ex) {
			throw new JobFailedException(ErrorCodes.STEP_TRANSACTION, "Transactional step '" + name + "' of job "
					+ run.jobId() + " (" + run.type() + ") cannot run: " + ex.getMessage(), false, ex);
		}
	}

	private void record(JobRun run, String name, Object value, Type type, Instant startedAt,
			boolean inCallerTransaction) {
		String json = write(run, name, value, type);
		JobStep step = new JobStep(name, run.recordedSteps.nextPosition(), json, run.job.run(), run.job.attempt(),
				startedAt, run.now());
		boolean recorded;
		try {
			recorded = run.store().recordStep(run.ref(), step, inCallerTransaction);
		}
		catch (IllegalStateException ex) {
			throw new JobFailedException(ErrorCodes.STEP_TRANSACTION, "Transactional step '" + name + "' of job "
					+ run.jobId() + " (" + run.type() + ") cannot be recorded with its work: " + ex.getMessage(), false,
					ex);
		}
		if (!recorded) {
			run.leaseLost = true;
			throw new StepNotRecordedException("Step '" + name + "' of job " + run.jobId() + " (" + run.type()
					+ ") was not recorded: this run no longer holds the job (its lease was lost, and the job runs "
					+ "again elsewhere)" + (inCallerTransaction ? "; the step's transaction is rolled back" : ""));
		}
		run.recordedSteps.recorded(name, step);
	}

	/** The result as JSON, checked to read back as the step's type, or the job fails. */
	private String write(JobRun run, String name, Object value, Type type) {
		if (value == null) {
			return null;
		}
		String json;
		try {
			json = JsonText.escapeLoneSurrogates(this.codec.toJson(value));
		}
		catch (RuntimeException ex) {
			throw resultFailure(run, name, "its result cannot be written as JSON: " + ex.getMessage(), ex);
		}
		long size = (json.length() * 3L > this.maxResultBytes) ? json.getBytes(StandardCharsets.UTF_8).length
				: json.length();
		if (size > this.maxResultBytes) {
			throw resultFailure(run, name,
					"its result is " + size + " bytes as JSON, more than jobqueue.max-result-size ("
							+ this.maxResultBytes + " bytes); keep large results elsewhere and return a reference",
					null);
		}
		// Read back now, not on the next run: a result that cannot be replayed fails the
		// step while its work is fresh.
		read(run, name, json, type);
		return json;
	}

	@SuppressWarnings("unchecked")
	private <T> T read(JobRun run, String name, String json, Type type) {
		if (json == null || type == Void.class) {
			return null;
		}
		try {
			return (T) this.codec.fromJson(json, type);
		}
		catch (RuntimeException ex) {
			throw resultFailure(run, name,
					"its result cannot be read back as " + type.getTypeName() + ": " + ex.getMessage(), ex);
		}
	}

	private static JobFailedException resultFailure(JobRun run, String name, String reason, Throwable cause) {
		return new JobFailedException(ErrorCodes.STEP_RESULT,
				"Step '" + name + "' of job " + run.jobId() + " (" + run.type() + ") failed: " + reason, false, cause);
	}

	private static void checkName(JobRun run, String name) {
		if (name == null || name.isBlank()) {
			throw new JobFailedException(ErrorCodes.STEP_NAME,
					"A step of job " + run.jobId() + " (" + run.type() + ") has no name: name every step", false);
		}
		if (name.length() > JobStep.MAX_NAME_LENGTH) {
			throw new JobFailedException(ErrorCodes.STEP_NAME,
					"Step name '" + name.substring(0, 40) + "…' of job " + run.jobId() + " (" + run.type() + ") has "
							+ name.length() + " characters, more than " + JobStep.MAX_NAME_LENGTH
							+ ": a step's name is a key, keep it short",
					false);
		}
	}

	/**
	 * A step could not be recorded because its run no longer holds the job: the run ends
	 * as one whose lease was lost.
	 */
	static final class StepNotRecordedException extends IllegalStateException {

		StepNotRecordedException(String message) {
			super(message);
		}

	}

}
