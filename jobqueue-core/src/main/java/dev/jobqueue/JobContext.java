package dev.jobqueue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What a running handler may know and do about its job. Declare it as an extra parameter
 * of a {@link JobHandler} method to receive it.
 */
public interface JobContext {

	/** The job's id. */
	long jobId();

	/** The job's type. */
	String type();

	/** Which attempt this run is, starting at 1. Snoozes do not count. */
	int attempt();

	/** Attempts the job may use in all. */
	int maxAttempts();

	/**
	 * The key the job was enqueued with ({@link JobRequest#key(String)}): the customer,
	 * tenant or account it is for, the unit its handler's flow control applies to.
	 * @return the key, or empty for a job without one
	 */
	Optional<String> key();

	/**
	 * Records progress now: renews this run's lease and learns at once whether the job
	 * was cancelled. The worker renews leases on its own while the process lives; call
	 * this from long loops to be told of a cancellation sooner.
	 * @return whether the run should go on ({@code false} once the job was cancelled or
	 * its lease lost)
	 */
	boolean heartbeat();

	/**
	 * Reports how far the run is, for the dashboard's progress bar and the actuator
	 * endpoint, and proves the handler alive like {@link #heartbeat()}. Call it as often
	 * as you like: it is written at most every two seconds, together with the heartbeat,
	 * not per call.
	 * @param done units done so far
	 * @param total units in all, or 0 when unknown
	 * @param message what the handler is doing (shortened to 200 characters), or
	 * {@code null}
	 * @return whether the run should go on, as {@link #heartbeat()}
	 */
	default boolean progress(long done, long total, String message) {
		return heartbeat();
	}

	/**
	 * Whether the job was cancelled (or its lease lost) and the handler should stop soon.
	 */
	boolean isCancelled();

	/**
	 * Ends this run and puts the job back to run again after {@code delay}, without using
	 * up an attempt. Never returns: it throws {@link JobSnoozedException}, which the
	 * handler must let through.
	 */
	void snooze(Duration delay);

	/**
	 * Says what runs after this job: if this run succeeds, the next step of its chain is
	 * inserted in the same transaction that records the success, fenced like it, so it
	 * exists exactly once however often the handler ran. If the run does not succeed (it
	 * throws, is retried, snoozes, is cancelled), nothing is created: the next attempt
	 * decides again. The step joins this job's chain ({@link Job#chainId()}, this job's
	 * id if it was not in one) at the next chain index.
	 * @throws IllegalArgumentException if the request is invalid (as enqueue would say),
	 * waits for other jobs or has a dedup key
	 * @throws IllegalStateException if this run already said what comes next
	 */
	default void continueWith(String type, Object payload) {
		continueWith(JobRequest.of(type, payload));
	}

	/** As {@link #continueWith(String, Object)}, with options. */
	void continueWith(JobRequest next);

	/**
	 * Says that this job continues with many jobs and one that joins them: if this run
	 * succeeds, {@code children} (the next chain index) and {@code join} (the one after,
	 * waiting for every child as in {@link JobQueue#enqueueFanOut}) are inserted in the
	 * transaction that records the success, exactly once. For "import a file → one job
	 * per row → a summary when all rows are done".
	 * @throws IllegalArgumentException if a request is invalid, waits for other jobs or
	 * has a dedup key, or there are more than {@code EnqueueLimits.MAX_FAN_OUT} children
	 * @throws IllegalStateException if this run already said what comes next
	 */
	void continueWithFanOut(List<JobRequest> children, JobRequest join);

	/**
	 * Runs a durable step: the first run of this job that reaches it calls {@code work}
	 * and records its result (written with the payload codec) under this job and
	 * {@code name}, fenced on the run like its outcome; every later run of the job (a
	 * retry, a recovery after a crash, a hand-back at shutdown, {@link JobQueue#retry})
	 * returns the recorded result, read back as {@code type}, without calling
	 * {@code work}.
	 *
	 * <p>
	 * A step is done once the record commits. Work outside the queue's database (a card
	 * charged, a mail sent) runs again if the process dies between its end and the
	 * record: at least once. Pass {@link #idempotencyKey(String)} to such a service so it
	 * can tell the second call from a new one; use {@link #transactionalStep} for writes
	 * to the queue's own database. Called inside a transaction of the application on the
	 * queue's database, the record joins that transaction.
	 * @param name the step's name, unique within one run of the job, at most
	 * {@value JobStep#MAX_NAME_LENGTH} characters
	 * @return what {@code work} returned, now or on an earlier run
	 * @throws JobFailedException with {@link ErrorCodes#STEP_NAME} for a blank, too long
	 * or repeated name, or {@link ErrorCodes#STEP_RESULT} for a result the codec cannot
	 * write or read back as {@code type}; the job fails and is not retried
	 * @throws IllegalStateException when this run no longer holds the job (its lease was
	 * lost: nothing was recorded) or has ended
	 */
	<T> T step(String name, Class<T> type, Supplier<? extends T> work);

	/**
	 * A durable step without a result: as {@link #step(String, Class, Supplier)}, with
	 * nothing to return.
	 */
	void step(String name, Runnable work);

	/**
	 * A durable step whose database writes commit together with its record: {@code work}
	 * runs in a transaction on the queue's DataSource, and the record is written in the
	 * same transaction, fenced on the run. Either both commit or neither does: a run that
	 * lost its lease rolls its writes back. Needs the queue on the application's
	 * DataSource (not {@code jobqueue.datasource.url}) and a transaction manager for it.
	 * @throws JobFailedException with {@link ErrorCodes#STEP_TRANSACTION} when the queue
	 * does not share the application's DataSource, or the transaction is not on the
	 * queue's DataSource; the job fails and is not retried
	 * @see #step(String, Class, Supplier)
	 */
	<T> T transactionalStep(String name, Class<T> type, Supplier<? extends T> work);

	/**
	 * A transactional step without a result; see
	 * {@link #transactionalStep(String, Class, Supplier)}.
	 */
	void transactionalStep(String name, Runnable work);

	/**
	 * A key naming one step of this job and no other, the same in every run of the job:
	 * {@code jobqueue-<job id>-<step name>}. Give it to a service that deduplicates
	 * requests by key (a payment provider's idempotency key, a unique column), so that a
	 * step run again after a crash does its work once.
	 */
	default String idempotencyKey(String stepName) {
		return "jobqueue-" + jobId() + "-" + stepName;
	}

}
