package dev.jobqueue.views;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import dev.jobqueue.core.FlowControl;

/**
 * What a {@link QueueSnapshot} looks at.
 *
 * @param stuckAfter a running job whose last heartbeat is older than this is stuck
 * @param topErrors error codes listed by name; the rest are summed
 * @param workerDeadAfter a worker whose last heartbeat is older than this no longer
 * counts as handling its types
 * @param jobsListed how many jobs the lists of oldest running and stuck jobs show
 * @param flowControls the flow control of each type whose held jobs the snapshot counts
 * ({@link QueueSnapshot#flow()}): the types this process handles with limits
 */
public record SnapshotSettings(Duration stuckAfter, int topErrors, Duration workerDeadAfter, int jobsListed,
		Map<String, FlowControl> flowControls) {

	public SnapshotSettings(Duration stuckAfter, int topErrors, Duration workerDeadAfter, int jobsListed,
			@Nullable Map<String, FlowControl> flowControls) {
		this.stuckAfter = Objects.requireNonNull(stuckAfter, "'stuckAfter' must not be null");
		this.workerDeadAfter = Objects.requireNonNull(workerDeadAfter, "'workerDeadAfter' must not be null");
		if (topErrors < 1 || jobsListed < 1) {
			throw new IllegalArgumentException("topErrors and jobsListed must be at least 1");
		}
		this.topErrors = topErrors;
		this.jobsListed = jobsListed;
		Map<String, FlowControl> limited = new TreeMap<>();
		if (flowControls != null) {
			flowControls.forEach((type, flow) -> {
				if (flow != null && flow.limits()) {
					limited.put(type, flow);
				}
			});
		}
		this.flowControls = Collections.unmodifiableMap(limited);
	}

	/** Settings that count no type's held jobs. */
	public SnapshotSettings(Duration stuckAfter, int topErrors, Duration workerDeadAfter, int jobsListed) {
		this(stuckAfter, topErrors, workerDeadAfter, jobsListed, Map.of());
	}

	/**
	 * These settings counting the held jobs of the given types (those without limits are
	 * left out).
	 */
	public SnapshotSettings withFlowControls(Map<String, FlowControl> flowControls) {
		return new SnapshotSettings(this.stuckAfter, this.topErrors, this.workerDeadAfter, this.jobsListed,
				flowControls);
	}

}
