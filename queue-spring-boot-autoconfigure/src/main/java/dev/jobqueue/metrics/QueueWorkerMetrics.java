package dev.jobqueue.metrics;

import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.jobqueue.core.worker.JobWorker;

/**
 * The jobs this process's worker holds, read from the worker at scrape time (no query):
 * {@code jobqueue_worker_jobs{state=running}} (running, or ended with the outcome not
 * written yet) and {@code jobqueue_worker_jobs{state=waiting}} (claimed ahead, waiting
 * for a slot). Both are {@code running} in the database, so {@code jobqueue_jobs} counts
 * them together; these gauges tell them apart, per process.
 */
public class QueueWorkerMetrics implements MeterBinder {

	private final Supplier<JobWorker> worker;

	/**
	 * @param worker this process's worker as it stands now, or {@code null} while it runs
	 * none
	 */
	public QueueWorkerMetrics(Supplier<JobWorker> worker) {
		this.worker = Objects.requireNonNull(worker, "'worker' must not be null");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("jobqueue.worker.jobs", this, (metrics) -> metrics.read(JobWorker::runningCount))
			.tag("state", "running")
			.description("Jobs this process's worker runs, or has run with the outcome not written yet")
			.register(registry);
		Gauge.builder("jobqueue.worker.jobs", this, (metrics) -> metrics.read(JobWorker::waitingCount))
			.tag("state", "waiting")
			.description("Jobs this process's worker holds claimed ahead, waiting for a slot")
			.register(registry);
	}

	private double read(ToIntFunction<JobWorker> count) {
		JobWorker running = this.worker.get();
		return (running != null) ? count.applyAsInt(running) : 0;
	}

}
