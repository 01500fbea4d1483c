package dev.jobqueue.autoconfigure.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

import dev.jobqueue.actuate.QueueHealthIndicator;
import dev.jobqueue.autoconfigure.JobQueueClock;
import dev.jobqueue.autoconfigure.QueueAutoConfiguration;
import dev.jobqueue.autoconfigure.QueueProperties;
import dev.jobqueue.autoconfigure.QueueWorker;
import dev.jobqueue.core.retention.RetentionCleaner;
import dev.jobqueue.core.retention.TableVacuums;
import dev.jobqueue.core.store.QueueStorage;
import dev.jobqueue.views.QueueViews;

/**
 * Auto-configures the {@code jobqueue} health indicator (disable with
 * {@code management.health.jobqueue.enabled=false}).
 */
@AutoConfiguration(after = QueueAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(QueueViews.class)
@ConditionalOnEnabledHealthIndicator("jobqueue")
public final class QueueHealthAutoConfiguration {

	/**
	 * Named like Boot's {@code dbHealthContributor}: a user's bean of either name
	 * replaces it.
	 */
	@Bean
	@ConditionalOnMissingBean(name = { "jobqueueHealthIndicator", "jobqueueHealthContributor" })
	QueueHealthIndicator jobqueueHealthContributor(QueueViews views, QueueProperties properties,
			ObjectProvider<JobQueueClock> clock, ObjectProvider<QueueWorker> worker,
			ObjectProvider<QueueStorage> storage, ObjectProvider<RetentionCleaner> cleaner, Environment environment) {
		QueueProperties.Observability observability = properties.getObservability();
		String degraded = observability.getDegradedStatus();
		if (degraded == null || degraded.isBlank()) {
			throw new IllegalStateException("jobqueue.observability.degraded-status must not be blank: use "
					+ "DEGRADED (the default), OUT_OF_SERVICE or DOWN");
		}
		Clock queueClock = clock.getIfAvailable(JobQueueClock::system).clock();
		QueueHealthIndicator indicator = new QueueHealthIndicator(views, queueClock, observability.getStuckAfter(),
				observability.getMaxQueueAge(), new Status(degraded.trim().toUpperCase(Locale.ROOT)), () -> {
					QueueWorker queueWorker = worker.getIfUnique();
					return (queueWorker != null) ? queueWorker.worker() : null;
				}, properties.snapshotSettings().workerDeadAfter());
		indicator.setUnhandledJobs(new UnhandledJobs(views, properties, queueClock));
		indicator.setWarnings(() -> {
			RetentionCleaner retention = cleaner.getIfUnique();
			String vacuum = (retention != null) ? retention.tableVacuums().map(TableVacuums::warning).orElse(null)
					: null;
			return (vacuum != null) ? List.of(vacuum) : List.of();
		});
		// Health answers everyone alike, so the location shows only when values always
		// do.
		QueueStorage queueStorage = storage.getIfUnique();
		String showValues = environment.getProperty("management.endpoint.jobqueue.show-values", "never");
		if (queueStorage != null && !showValues.trim().equalsIgnoreCase("always")) {
			indicator.hideLocation(queueStorage.description());
		}
		return indicator;
	}

	/**
	 * The pending jobs of types no live worker handles, from an operations snapshot taken
	 * at most once per {@code jobqueue.observability.refresh-interval}, so that frequent
	 * probes stay cheap.
	 */
	static final class UnhandledJobs implements Supplier<Map<String, Long>> {

		private final QueueViews views;

		private final QueueProperties properties;

		private final Clock clock;

		private Map<String, Long> last = Map.of();

		private Instant takenAt;

		UnhandledJobs(QueueViews views, QueueProperties properties, Clock clock) {
			this.views = views;
			this.properties = properties;
			this.clock = clock;
		}

		@Override
		public synchronized Map<String, Long> get() {
			Instant now = this.clock.instant();
			Duration refresh = this.properties.getObservability().getRefreshInterval();
			if (this.takenAt == null || !now.isBefore(this.takenAt.plus(refresh)) || now.isBefore(this.takenAt)) {
				this.last = this.views.snapshot(now, this.properties.snapshotSettings()).unhandled();
				this.takenAt = now;
			}
			return this.last;
		}

	}

}
