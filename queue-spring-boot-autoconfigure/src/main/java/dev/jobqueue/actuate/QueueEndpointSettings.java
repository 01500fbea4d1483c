package dev.jobqueue.actuate;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import dev.jobqueue.views.SnapshotSettings;

/**
 * The queue's settings the {@link QueueEndpoint} reads with and shows, built by the
 * auto-configuration from {@code jobqueue.*}: the endpoint takes these values, not the
 * properties they are bound to.
 *
 * @param snapshot what a snapshot of the queue looks at (stuck-after, Top-N error codes,
 * when a worker counts as dead)
 * @param payloadPreview characters of a job's payload and result shown when values are
 * shown; 0 shows only their length
 * @param retention how long finished jobs are kept, shown with the queue's state
 */
public record QueueEndpointSettings(SnapshotSettings snapshot, int payloadPreview, Retention retention) {

	public QueueEndpointSettings {
		Objects.requireNonNull(snapshot, "'snapshot' must not be null");
		Objects.requireNonNull(retention, "'retention' must not be null");
		payloadPreview = Math.max(0, payloadPreview);
	}

	/**
	 * Retention as configured.
	 *
	 * @param enabled whether finished jobs are deleted
	 * @param succeeded how long succeeded jobs are kept
	 * @param failed how long failed jobs are kept
	 * @param cancelled how long cancelled jobs are kept
	 * @param perType retention per job type, in the order configured
	 * @param batchSize rows deleted per transaction
	 * @param interval how often the cleanup runs
	 */
	public record Retention(boolean enabled, Duration succeeded, Duration failed, Duration cancelled,
			Map<String, Duration> perType, int batchSize, Duration interval) {

		public Retention {
			Objects.requireNonNull(succeeded, "'succeeded' must not be null");
			Objects.requireNonNull(failed, "'failed' must not be null");
			Objects.requireNonNull(cancelled, "'cancelled' must not be null");
			Objects.requireNonNull(interval, "'interval' must not be null");
			perType = Collections.unmodifiableMap(new LinkedHashMap<>((perType != null) ? perType : Map.of()));
		}

	}

}
