package dev.jobqueue.views;

import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.jobqueue.core.FlowControl;

/**
 * Which keys {@link QueueViews#keys(KeyQuery)} reads.
 *
 * @param type the job type
 * @param flowControl its flow control as this process knows it ({@link FlowControl#NONE}
 * if it has none or the process does not handle the type): it says whether a failed job
 * blocks its key
 * @param now the instant due jobs are counted at
 * @param limit how many keys each list holds, 1 to {@link #MAX_LIMIT}
 */
public record KeyQuery(String type, FlowControl flowControl, Instant now, int limit) {

	/** Keys listed unless asked otherwise. */
	public static final int DEFAULT_LIMIT = 10;

	/** Most keys listed. */
	public static final int MAX_LIMIT = 100;

	public KeyQuery(String type, @Nullable FlowControl flowControl, Instant now, int limit) {
		this.type = Objects.requireNonNull(type, "'type' must not be null");
		this.now = Objects.requireNonNull(now, "'now' must not be null");
		this.flowControl = (flowControl != null) ? flowControl : FlowControl.NONE;
		if (limit < 1 || limit > MAX_LIMIT) {
			throw new IllegalArgumentException(
					"A key list of " + limit + " keys is out of range: use 1 to " + MAX_LIMIT);
		}
		this.limit = limit;
	}

}
