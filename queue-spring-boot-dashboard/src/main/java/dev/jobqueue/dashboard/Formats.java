package dev.jobqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.jobqueue.JobStatus;

/** How the pages write times, ages and counts: UTC, short, the same on every page. */
final class Formats {

	private static final DateTimeFormatter INSTANT = DateTimeFormatter
		.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT)
		.withZone(ZoneOffset.UTC);

	private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT)
		.withZone(ZoneOffset.UTC);

	/**
	 * The statuses in the order a job goes through them: waiting (an addition, last in
	 * the enum) before pending.
	 */
	private static final List<JobStatus> STATUSES = lifecycleOrder();

	private Formats() {
	}

	/** Every status, in the order of a job's life; for counts, filters and columns. */
	static List<JobStatus> statuses() {
		return STATUSES;
	}

	private static List<JobStatus> lifecycleOrder() {
		List<JobStatus> statuses = new ArrayList<>();
		statuses.add(JobStatus.WAITING);
		for (JobStatus status : JobStatus.values()) {
			if (status != JobStatus.WAITING) {
				statuses.add(status);
			}
		}
		return List.copyOf(statuses);
	}

	static String instant(Instant instant) {
		return (instant != null) ? INSTANT.format(instant) : "";
	}

	static String time(Instant instant) {
		return TIME.format(instant);
	}

	static String count(long count) {
		return String.format(Locale.ROOT, "%,d", count);
	}

	/** {@code 3 h 5 min}, {@code 4 min 20 s}, {@code 12 s}, {@code 0.4 s}. */
	static String age(Duration duration) {
		if (duration == null) {
			return "";
		}
		long millis = Math.max(0, duration.toMillis());
		if (millis < 10_000) {
			return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
		}
		long seconds = millis / 1000;
		if (seconds < 60) {
			return seconds + " s";
		}
		if (seconds < 3600) {
			return (seconds / 60) + " min " + (seconds % 60) + " s";
		}
		if (seconds < 86_400) {
			return (seconds / 3600) + " h " + ((seconds % 3600) / 60) + " min";
		}
		return (seconds / 86_400) + " d " + ((seconds % 86_400) / 3600) + " h";
	}

	/** How long ago {@code instant} was, as {@link #age}; empty for {@code null}. */
	static String ago(Instant instant, Instant now) {
		return (instant != null) ? age(Duration.between(instant, now)) + " ago" : "";
	}

}
