package dev.jobqueue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A durable step a job's handler finished ({@link JobContext#step}): its result is kept
 * under the job and the step's name, so later runs of the job return it without doing the
 * step again.
 *
 * @param name the step's name, unique within its job
 * @param position its place among the job's steps, from 1, in the order they were
 * recorded
 * @param result the step's result as JSON text, or {@code null} for a step without one (a
 * {@link Runnable} step, or a supplier that returned {@code null})
 * @param run which run of the job recorded it (its count of claims: the first run is 1,
 * and a run after a recovery or a retry counts on)
 * @param attempt which attempt that run counted as
 * @param startedAt when the step began
 * @param recordedAt when its result was recorded
 */
public record JobStep(String name, int position, @Nullable String result, int run, int attempt, Instant startedAt,
		Instant recordedAt) {

	/**
	 * The most characters a step's name may have: it is a key, not a description.
	 */
	public static final int MAX_NAME_LENGTH = 100;

}
