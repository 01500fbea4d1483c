package dev.jobqueue.core.retention;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import dev.jobqueue.JobStatus;

/**
 * How long finished jobs are kept: one retention per final status, optionally overridden
 * per job type (an override applies to every final status of its type). Unfinished jobs
 * are never deleted.
 *
 * <p>
 * A retention that is {@code null}, zero or negative switches deletion off: those jobs
 * are kept forever. So {@code jobqueue.retention.failed=-1} keeps every failed job, and
 * {@code jobqueue.retention.per-type.audit=-1} keeps every job of type {@code audit}
 * whatever its status. (Zero means "off" rather than "at once" because a job deleted the
 * moment it finishes leaves no trace to look at; use a short positive value for that.)
 */
public final class RetentionPolicy {

	private final Map<JobStatus, Duration> byStatus;

	private final Map<String, Duration> byType;

	private RetentionPolicy(Map<JobStatus, Duration> byStatus, Map<String, Duration> byType) {
		this.byStatus = byStatus;
		this.byType = byType;
	}

	/**
	 * A policy from per-status retentions and per-type overrides.
	 * @param perType may be {@code null}; keys must be job types, values as for the
	 * statuses
	 */
	public static RetentionPolicy of(Duration succeeded, Duration failed, Duration cancelled,
			Map<String, Duration> perType) {
		Map<JobStatus, Duration> byStatus = new EnumMap<>(JobStatus.class);
		byStatus.put(JobStatus.SUCCEEDED, normalize(succeeded));
		byStatus.put(JobStatus.FAILED, normalize(failed));
		byStatus.put(JobStatus.CANCELLED, normalize(cancelled));
		Map<String, Duration> byType = new LinkedHashMap<>();
		if (perType != null) {
			perType.forEach((type, retention) -> {
				if (type == null || type.isBlank()) {
					throw new IllegalArgumentException("jobqueue.retention.per-type has an empty job type: use "
							+ "per-type.<type>=<duration>, for example jobqueue.retention.per-type.report=7d");
				}
				byType.put(type, normalize(retention));
			});
		}
		return new RetentionPolicy(Collections.unmodifiableMap(byStatus), Collections.unmodifiableMap(byType));
	}

	/** Keeps every job forever. */
	public static RetentionPolicy keepForever() {
		return of(null, null, null, null);
	}

	/** Whether a configured retention means "keep forever". */
	public static boolean keepsForever(Duration retention) {
		return retention == null || retention.isZero() || retention.isNegative();
	}

	private static Duration normalize(Duration retention) {
		return keepsForever(retention) ? Duration.ZERO : retention;
	}

	/**
	 * How long a finished job of {@code status} and {@code type} is kept.
	 * @return empty when such jobs are kept forever (and for unfinished statuses)
	 */
	public Optional<Duration> retention(JobStatus status, String type) {
		Objects.requireNonNull(status, "'status' must not be null");
		if (!status.isFinal()) {
			return Optional.empty();
		}
		Duration retention = this.byType.getOrDefault(type, this.byStatus.get(status));
		return keepsForever(retention) ? Optional.empty() : Optional.of(retention);
	}

	/** Whether any finished job can ever be deleted under this policy. */
	public boolean deletesAnything() {
		return this.byStatus.values().stream().anyMatch((retention) -> !keepsForever(retention))
				|| this.byType.values().stream().anyMatch((retention) -> !keepsForever(retention));
	}

	/**
	 * The longest any finished job is kept, over the statuses and the per-type overrides:
	 * how far back the runs of kept jobs reach.
	 * @return empty when some finished jobs are kept forever
	 */
	public Optional<Duration> longest() {
		Duration longest = Duration.ZERO;
		for (Duration retention : this.byStatus.values()) {
			if (keepsForever(retention)) {
				return Optional.empty();
			}
			longest = (retention.compareTo(longest) > 0) ? retention : longest;
		}
		for (Duration retention : this.byType.values()) {
			if (keepsForever(retention)) {
				return Optional.empty();
			}
			longest = (retention.compareTo(longest) > 0) ? retention : longest;
		}
		return Optional.of(longest);
	}

	/**
	 * The retention of each final status; {@link Duration#ZERO} stands for "kept
	 * forever".
	 */
	public Map<JobStatus, Duration> byStatus() {
		return this.byStatus;
	}

	/** The per-type overrides; {@link Duration#ZERO} stands for "kept forever". */
	public Map<String, Duration> byType() {
		return this.byType;
	}

	@Override
	public String toString() {
		return "RetentionPolicy" + this.byStatus + (this.byType.isEmpty() ? "" : " per type " + this.byType);
	}

}
