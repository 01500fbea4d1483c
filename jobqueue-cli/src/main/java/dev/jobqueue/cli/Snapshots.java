package dev.jobqueue.cli;

import java.time.Duration;

import picocli.CommandLine.Option;

import dev.jobqueue.views.SnapshotSettings;

/**
 * The settings a snapshot is read with, as the application's
 * {@code jobqueue.observability.*} has them by default.
 */
final class Snapshots {

	@Option(names = "--stuck-after", defaultValue = "15m", converter = Durations.class,
			description = "A running job without a heartbeat for this long is stuck (the application's "
					+ "jobqueue.observability.stuck-after; default: ${DEFAULT-VALUE}).")
	Duration stuckAfter;

	@Option(names = "--worker-dead-after", defaultValue = "3m", converter = Durations.class,
			description = "A worker without a heartbeat for this long no longer counts "
					+ "(jobqueue.observability.worker-dead-after; default: ${DEFAULT-VALUE}, three leases).")
	Duration workerDeadAfter;

	SnapshotSettings settings() {
		return new SnapshotSettings(this.stuckAfter, 10, this.workerDeadAfter, 10);
	}

}
