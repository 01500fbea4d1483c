package dev.jobqueue.autoconfigure;

import java.time.Duration;
import java.util.Locale;
import java.util.Set;

import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;

/**
 * The checks of {@code jobqueue.*} at binding (see {@link QueueProperties#validate}), so
 * a value that cannot work fails start-up in Boot's "APPLICATION FAILED TO START" form
 * naming the property, before the web server listens and before any migration. Each
 * reason says what to set. Needs no Bean Validation provider on the classpath.
 *
 * <p>
 * {@code jobqueue.handlers.<type>.*} is not checked here: each type's settings are
 * checked with the attributes of its {@code @JobHandler} as it registers
 * ({@link HandlerFlowControls}), so a message can name the handler and whether the two
 * fit together, and those of types without a handler here once all have registered
 * ({@link HandlerSettingsCheck}).
 */
final class QueuePropertiesValidation {

	private static final String CODE = "jobqueue.invalid";

	private static final Set<String> SYNCHRONOUS = Set.of("NORMAL", "FULL");

	private final Errors errors;

	private QueuePropertiesValidation(Errors errors) {
		this.errors = errors;
	}

	static void validate(QueueProperties properties, Errors errors) {
		new QueuePropertiesValidation(errors).check(properties);
	}

	private void check(QueueProperties properties) {
		positive("max-payload-size", properties.getMaxPayloadSize());
		positive("max-result-size", properties.getMaxResultSize());

		QueueProperties.Datasource datasource = properties.getDatasource();
		atLeast("datasource.pool-size", datasource.getPoolSize(), 1,
				"connections of the queue's own pool; 4 is the " + "default");
		positive("datasource.connection-timeout", datasource.getConnectionTimeout());
		notNegative("datasource.busy-timeout", datasource.getBusyTimeout());
		notNegative("datasource.lock-wait", datasource.getLockWait());
		String synchronous = datasource.getSynchronous();
		if (synchronous == null || !SYNCHRONOUS.contains(synchronous.toUpperCase(Locale.ROOT))) {
			reject("datasource.synchronous", "must be NORMAL or FULL (SQLite's synchronous pragma)");
		}

		QueueProperties.Worker worker = properties.getWorker();
		atLeast("worker.concurrency", worker.getConcurrency(), 1,
				"jobs running at once in this process; 8 is the default, and jobqueue.worker.enabled=false makes "
						+ "an enqueue-only process");
		positive("worker.poll-interval", worker.getPollInterval());
		positive("worker.lease", worker.getLease());
		notNegative("worker.shutdown-timeout", worker.getShutdownTimeout());
		atLeast("worker.max-snoozes", worker.getMaxSnoozes(), 0, "snoozes a job may take; 100 is the default");
		positive("worker.cancel-timeout", worker.getCancelTimeout());

		QueueProperties.Retry retry = properties.getRetry();
		atLeast("retry.max-attempts", retry.getMaxAttempts(), 1, "1 runs a job once, without retries");
		positive("retry.initial-backoff", retry.getInitialBackoff());
		positive("retry.max-backoff", retry.getMaxBackoff());
		if (isPositive(retry.getInitialBackoff()) && isPositive(retry.getMaxBackoff())
				&& retry.getMaxBackoff().compareTo(retry.getInitialBackoff()) < 0) {
			reject("retry.max-backoff", "must not be shorter than jobqueue.retry.initial-backoff ("
					+ retry.getInitialBackoff() + "); raise it or lower the initial backoff");
		}

		QueueProperties.Scheduling scheduling = properties.getScheduling();
		positive("scheduling.poll-interval", scheduling.getPollInterval());
		positive("scheduling.misfire-threshold", scheduling.getMisfireThreshold());
		if (isPositive(scheduling.getPollInterval()) && isPositive(scheduling.getMisfireThreshold())
				&& scheduling.getPollInterval().compareTo(scheduling.getMisfireThreshold()) >= 0) {
			reject("scheduling.poll-interval",
					"must be shorter than jobqueue.scheduling.misfire-threshold (" + scheduling.getMisfireThreshold()
							+ "), or ticks fired on time would count as missed; lower the "
							+ "poll interval or raise the threshold");
		}

		scheduling.getSchedules().forEach(this::schedule);

		QueueProperties.Retention retention = properties.getRetention();
		// Retentions of 0 or less mean "keep forever" (RetentionPolicy).
		atLeast("retention.batch-size", retention.getBatchSize(), 1,
				"rows per delete transaction; 5000 is the default");
		positive("retention.interval", retention.getInterval());
		positive("retention.lease", retention.getLease());

		QueueProperties.Observability observability = properties.getObservability();
		positive("observability.stuck-after", observability.getStuckAfter());
		atLeast("observability.top-errors", observability.getTopErrors(), 1,
				"error codes named in the Top-N; 10 is the default");
		positive("observability.refresh-interval", observability.getRefreshInterval());
		atLeast("observability.payload-preview", observability.getPayloadPreview(), 0,
				"characters shown; 0 shows only the length");
		if (observability.getMaxQueueAge() != null) {
			positive("observability.max-queue-age", observability.getMaxQueueAge());
		}
		if (observability.getWorkerDeadAfter() != null) {
			positive("observability.worker-dead-after", observability.getWorkerDeadAfter());
		}
	}

	/**
	 * A schedule of {@code jobqueue.scheduling.schedules}, checked as
	 * {@link ConfiguredSchedules} will build it. A zone or interval that is not one at
	 * all fails in Boot's binder before this, naming the property as well.
	 */
	private void schedule(String name, QueueProperties.ScheduleEntry entry) {
		String path = "scheduling.schedules[" + name + "].";
		String prefix = "jobqueue.scheduling.schedules." + name;
		String typeProblem = ConfiguredSchedules.typeProblem(entry.getType());
		if (typeProblem != null) {
			this.errors.rejectValue(javaPath(path + "type"), CODE, prefix + ": " + typeProblem);
		}
		String timing = ConfiguredSchedules.timingProblem(entry);
		if (timing != null) {
			this.errors.rejectValue(javaPath(path + ConfiguredSchedules.timingProperty(entry)), CODE,
					prefix + ": " + timing);
		}
	}

	private void atLeast(String property, int value, int least, String meaning) {
		if (value < least) {
			reject(property, "must be at least " + least + " (" + meaning + ")");
		}
	}

	private void positive(String property, Duration value) {
		if (!isPositive(value)) {
			reject(property, "must be positive: a duration such as 10s or 5m");
		}
	}

	private void notNegative(String property, Duration value) {
		if (value == null || value.isNegative()) {
			reject(property, "must be a duration of 0 or more, such as 0, 10s or 30d");
		}
	}

	private void positive(String property, DataSize value) {
		if (value == null || value.toBytes() <= 0) {
			reject(property, "must be a positive size, such as 512KB or 2MB");
		}
	}

	private static boolean isPositive(Duration value) {
		return value != null && !value.isNegative() && !value.isZero();
	}

	/**
	 * @param property the property under {@code jobqueue.}, in the dashed form users
	 * write; the error's field is its Java path, which Boot maps back to that form
	 */
	private void reject(String property, String reason) {
		this.errors.rejectValue(javaPath(property), CODE, "jobqueue." + property + " " + reason);
	}

	private static String javaPath(String property) {
		StringBuilder path = new StringBuilder(property.length());
		boolean upper = false;
		boolean inKey = false;
		for (char c : property.toCharArray()) {
			inKey = (c == '[') || (inKey && c != ']');
			if (c == '-' && !inKey) {
				upper = true;
				continue;
			}
			path.append(upper ? Character.toUpperCase(c) : c);
			upper = false;
		}
		return path.toString();
	}

}
