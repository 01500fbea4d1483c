package dev.jobqueue.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

import org.slf4j.LoggerFactory;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.thread.Threading;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.VirtualThreads;
import dev.jobqueue.core.WorkerIds;
import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.worker.ErrorClassifier;
import dev.jobqueue.core.worker.JobWorker;
import dev.jobqueue.core.worker.RetryPolicy;
import dev.jobqueue.core.worker.RunInterceptor;
import dev.jobqueue.core.worker.WorkerListener;
import dev.jobqueue.core.worker.WorkerSettings;

/**
 * Builds the {@link JobWorker} at start, once every handler is registered. Listener and
 * interceptor are looked up then too, so beans declared anywhere in the context take
 * part.
 */
record WorkerFactory(JobStore store, HandlerRegistry handlers, PayloadCodec codec, ErrorClassifier classifier,
		RetryPolicy retry, Clock clock, QueueProperties.Worker properties, Environment environment,
		Supplier<WorkerListener> listener, Supplier<RunInterceptor> interceptor, long maxResultBytes) {

	/**
	 * @param executor where handlers run, or {@code null} for the worker's own pool
	 */
	JobWorker create(ExecutorService executor) {
		// Unset, the claim-ahead bound follows the worker's pace from its default.
		WorkerSettings settings = new WorkerSettings(WorkerIds.newId(), this.properties.getConcurrency(),
				this.properties.getPollInterval(), this.properties.getLease(), shutdownWait(),
				this.properties.getMaxSnoozes(), this.properties.getCancelTimeout(), this.maxResultBytes);
		if (this.properties.getClaimAhead() != null) {
			settings = settings.withClaimAhead(this.properties.getClaimAhead());
		}
		return new JobWorker(this.store, this.handlers, this.codec, this.classifier, this.retry, this.clock, settings,
				(executor != null) ? executor : executor(), this.listener.get(), this.interceptor.get());
	}

	/**
	 * {@code jobqueue.worker.shutdown-timeout}, cut to fit the context's shutdown phase
	 * (see {@link QueueLifecycle}). Said in the log only when a timeout the user set is
	 * cut: the defaults (30s in a 30s phase) are cut every time, and say nothing new.
	 */
	Duration shutdownWait() {
		Duration configured = this.properties.getShutdownTimeout();
		Duration phase = QueueLifecycle.phaseTimeout(this.environment);
		Duration wait = QueueLifecycle.workerWait(configured, phase);
		if (wait.compareTo(configured) < 0 && shutdownTimeoutIsSet()) {
			LoggerFactory.getLogger(QueueWorker.class)
				.info("The worker waits {} for running jobs at shutdown, not "
						+ "jobqueue.worker.shutdown-timeout={}, to hand back the rest within "
						+ "spring.lifecycle.timeout-per-shutdown-phase={}", wait, configured, phase);
		}
		return wait;
	}

	private boolean shutdownTimeoutIsSet() {
		return this.environment != null
				&& Binder.get(this.environment).bind("jobqueue.worker.shutdown-timeout", Duration.class).isBound();
	}

	ExecutorService executor() {
		Boolean configured = this.properties.getVirtualThreads();
		boolean virtual = (configured != null) ? configured : Threading.VIRTUAL.isActive(this.environment);
		if (virtual) {
			Optional<ExecutorService> executor = VirtualThreads.perTaskExecutor("jobqueue-vworker-");
			if (executor.isPresent()) {
				return executor.get();
			}
		}
		CustomizableThreadFactory threads = new CustomizableThreadFactory("jobqueue-worker-");
		// The worker hands back what still runs when it stops; a handler that ignores its
		// interrupt must not
		// keep the JVM alive after that (virtual threads are daemons too).
		threads.setDaemon(true);
		return Executors.newFixedThreadPool(this.properties.getConcurrency(), threads);
	}

}
