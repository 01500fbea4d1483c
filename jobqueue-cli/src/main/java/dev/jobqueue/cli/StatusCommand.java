package dev.jobqueue.cli;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import dev.jobqueue.JobStatus;
import dev.jobqueue.PausedType;
import dev.jobqueue.views.HeldJobs;
import dev.jobqueue.views.JobSummary;
import dev.jobqueue.views.QueueSnapshot;
import dev.jobqueue.views.QueueViews;
import dev.jobqueue.views.StuckJobs;

/**
 * {@code status}: the state of the queue as the endpoint answers it.
 */
@Command(name = "status", description = "The queue's state: counts by type and status, the oldest claimable job, "
		+ "stuck jobs, retries, top error codes, held and paused types, workers.")
final class StatusCommand extends QueueCommand {

	@Mixin
	Snapshots snapshots;

	/**
	 * The answer, in the shape of the endpoint's {@code GET /actuator/jobqueue} (without
	 * what only the application knows: its own worker and its retention settings).
	 */
	record Status(Instant at, String store, String schemaVersion, Map<String, Long> counts,
			Map<String, Map<String, Long>> byType, Pending pending, List<JobSummary> oldestRunning, StuckJobs stuck,
			Map<Integer, Long> retries, Map<String, Map<Integer, Long>> retriesByType,
			QueueSnapshot.ErrorSummary errors, Map<String, Long> unhandled, List<PausedType> paused,
			List<QueueSnapshot.WorkerState> workers, HeldJobs held, QueueSnapshot.StorageState storage) {

	}

	record Pending(long claimable, long scheduled, JobSummary oldestClaimable) {

	}

	@Override
	int run(QueueDatabase db, Output out) {
		Status status = read(db, this.snapshots);
		if (out.json()) {
			out.json(status);
		}
		else {
			print(status, db, out);
		}
		return ExitCodes.OK;
	}

	static Status read(QueueDatabase db, Snapshots snapshots) {
		Instant now = Instant.now();
		QueueViews views = db.views();
		QueueSnapshot snapshot = views.snapshot(now, snapshots.settings());
		Map<String, Long> counts = snapshot.statusCounts();
		long pending = snapshot.countsByStatus().getOrDefault(JobStatus.PENDING, 0L);
		HeldJobs held = views.held(now.minus(snapshots.workerDeadAfter), 10);
		Map<String, Map<String, Long>> byType = snapshot.typeCounts();
		return new Status(now, db.storeName(), db.versions().applied(), counts, byType,
				new Pending(snapshot.claimable(), pending - snapshot.claimable(), snapshot.oldestClaimable()),
				snapshot.oldestRunning(), snapshot.stuck(), snapshot.retries(), snapshot.retriesByType(),
				snapshot.errors(), snapshot.unhandled(), db.queue().pausedTypes(), snapshot.workers(), held,
				snapshot.storage());
	}

	private static void print(Status status, QueueDatabase db, Output out) {
		Instant now = status.at();
		out.line("Queue    %s %s, schema version %s", db.serverName(), db.description(), status.schemaVersion());
		out.line("Jobs     %s",
				status.counts()
					.entrySet()
					.stream()
					.map((entry) -> entry.getKey() + " " + entry.getValue())
					.collect(Collectors.joining(", ")));
		JobSummary oldest = status.pending().oldestClaimable();
		out.line("Pending  %d claimable, %d scheduled or held; oldest claimable: %s", status.pending().claimable(),
				status.pending().scheduled(),
				(oldest != null) ? "#" + oldest.id() + " " + oldest.type() + ", due " + Output.ago(oldest.runAt(), now)
						: "none");
		if (!status.byType().isEmpty()) {
			out.line("");
			out.line("%-32s %8s %8s %8s %10s %8s %10s", "TYPE", "WAITING", "PENDING", "RUNNING", "SUCCEEDED", "FAILED",
					"CANCELLED");
			status.byType()
				.forEach((type, counts) -> out.line("%-32s %8d %8d %8d %10d %8d %10d", type,
						counts.getOrDefault("waiting", 0L), counts.getOrDefault("pending", 0L),
						counts.getOrDefault("running", 0L), counts.getOrDefault("succeeded", 0L),
						counts.getOrDefault("failed", 0L), counts.getOrDefault("cancelled", 0L)));
		}
		out.line("");
		out.line("Stuck    %d", status.stuck().count());
		status.stuck()
			.oldest()
			.forEach((job) -> out.line("  #%d %s on %s, last heartbeat %s", job.id(), job.type(), job.workerId(),
					Output.ago(job.heartbeatAt(), now)));
		out.line("Retries  %s",
				status.retries().isEmpty() ? "none"
						: status.retries()
							.entrySet()
							.stream()
							.map((entry) -> entry.getKey() + " attempt(s) used: " + entry.getValue() + " job(s)")
							.collect(Collectors.joining(", ")));
		out.line("Errors   %s", status.errors().top().isEmpty() ? "none"
				: status.errors().distinctCodes() + " code(s) over failed and retrying jobs");
		status.errors()
			.top()
			.forEach((error) -> out.line("  %-40s %6d (failed %d, retrying %d)", error.code(), error.count(),
					error.failed(), error.retrying()));
		if (status.errors().other() > 0) {
			out.line("  %-40s %6d", "other", status.errors().other());
		}
		out.line("Unhandled %s",
				status.unhandled().isEmpty() ? "none: every pending type has a live worker"
						: "pending jobs no live worker handles: " + status.unhandled()
							.entrySet()
							.stream()
							.map((entry) -> entry.getKey() + " (" + entry.getValue() + ")")
							.collect(Collectors.joining(", ")));
		out.line("Paused   %s", status.paused().isEmpty() ? "none"
				: status.paused().stream().map(PausedType::type).collect(Collectors.joining(", ")));
		if (status.held().count() > 0) {
			out.line("Orphaned %d job(s) held until a commit that did not come", status.held().count());
		}
		out.line("Workers  %d (%d alive)", status.workers().size(),
				status.workers().stream().filter(QueueSnapshot.WorkerState::alive).count());
		status.workers()
			.forEach((worker) -> out.line("  %s %s pid %d, %d slots, types %s, heartbeat %s%s", worker.workerId(),
					worker.host(), worker.pid(), worker.concurrency(), worker.types(),
					Output.ago(worker.heartbeatAt(), now), worker.alive() ? "" : " (not seen: dead?)"));
	}

}
