package dev.jobqueue.cli;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import dev.jobqueue.jdbc.SchemaVersions;
import dev.jobqueue.views.HeldJobs;
import dev.jobqueue.views.QueueSnapshot;
import dev.jobqueue.views.QueueViews;
import dev.jobqueue.views.StuckJobs;

/**
 * {@code doctor}: what is wrong with the queue, each finding a line; exit code 1 when one
 * is a problem.
 */
@Command(name = "doctor", description = "Checks the queue: schema version against this tool's, the SQLite file "
		+ "(integrity, file and WAL size, free pages), the PostgreSQL tables (sizes, live and dead rows) or the "
		+ "MySQL/MariaDB tables (sizes, estimated rows), stuck jobs, "
		+ "orphaned held jobs, workers not seen recently, types with due jobs and no live worker. Exit code 1 when "
		+ "a problem is found.")
final class DoctorCommand extends QueueCommand {

	/** Dead rows above this many, and above a fifth of the live ones, want a vacuum. */
	static final long DEAD_ROWS_PROBLEM = 10_000;

	@Mixin
	Snapshots snapshots;

	@Option(names = "--quick", description = "SQLite: PRAGMA quick_check instead of the full integrity_check.")
	boolean quick;

	/**
	 * One thing the doctor looked at.
	 *
	 * @param check what it looked at
	 * @param problem whether it is a problem
	 * @param detail what it found
	 */
	record Finding(String check, boolean problem, String detail) {

	}

	/**
	 * Everything the doctor found.
	 *
	 * @param database where the queue is
	 * @param problems how many findings are problems
	 * @param findings every finding
	 */
	record Diagnosis(String database, long problems, List<Finding> findings) {

	}

	@Override
	QueueDatabase.Need need() {
		return QueueDatabase.Need.ANY_QUEUE;
	}

	@Override
	int run(QueueDatabase db, Output out) {
		List<Finding> findings = new ArrayList<>();
		SchemaVersions versions = db.versions();
		findings.add(new Finding("schema", versions.behind(),
				versions.behind()
						? "version " + versions.applied() + ", " + versions.pending() + " migration(s) "
								+ "behind this tool's " + versions.known() + ": run 'jobqueue-cli migrate'"
						: "version " + versions.applied() + ", as this tool's"));
		if (!versions.behind()) {
			examine(db, findings);
		}
		long problems = findings.stream().filter(Finding::problem).count();
		if (out.json()) {
			out.json(new Diagnosis(db.description(), problems, findings));
		}
		else {
			out.line("Doctor on %s %s", db.serverName(), db.description());
			findings.forEach((finding) -> out.line("%-8s %-10s %s", finding.problem() ? "PROBLEM" : "ok",
					finding.check(), finding.detail()));
			out.line((problems == 0) ? "No problem found." : problems + " problem(s) found.");
		}
		return (problems == 0) ? ExitCodes.OK : ExitCodes.NOTHING;
	}

	private void examine(QueueDatabase db, List<Finding> findings) {
		Instant now = Instant.now();
		QueueViews views = db.views();
		QueueSnapshot snapshot = views.snapshot(now, this.snapshots.settings());
		if (db.storeName().equals("SQLite")) {
			findings.add(integrity(db));
			QueueSnapshot.StorageState storage = snapshot.storage();
			if (storage != null) {
				findings.add(new Finding("file", false,
						Output.bytes(storage.databaseBytes()) + ", WAL " + Output.bytes(storage.walBytes()) + ", "
								+ storage.freePages() + " free of " + storage.pageCount() + " pages"));
			}
		}
		else if (snapshot.storage() != null) {
			findings.addAll(tables(snapshot.storage().details()));
		}
		StuckJobs stuck = snapshot.stuck();
		findings.add(new Finding("stuck", stuck.count() > 0,
				(stuck.count() == 0)
						? "no running job without a heartbeat for " + Output.duration(this.snapshots.stuckAfter)
						: stuck.count() + " running job(s) without a heartbeat for "
								+ Output.duration(this.snapshots.stuckAfter) + ": "
								+ stuck.oldest()
									.stream()
									.map((job) -> "#" + job.id() + " " + job.type() + " on " + job.workerId()
											+ ", heartbeat " + Output.ago(job.heartbeatAt(), now))
									.collect(Collectors.joining("; "))));
		HeldJobs held = views.held(now.minus(this.snapshots.workerDeadAfter), 10);
		findings.add(new Finding("held", held.count() > 0, (held.count() == 0) ? "no orphaned held job"
				: held.count() + " job(s) held until a commit that never came (their process died between its commit "
						+ "and their release): "
						+ held.oldest()
							.stream()
							.map((job) -> "#" + job.id() + " " + job.type())
							.collect(Collectors.joining(", "))));
		List<QueueSnapshot.WorkerState> silent = snapshot.workers()
			.stream()
			.filter((worker) -> !worker.alive())
			.toList();
		long alive = snapshot.workers().size() - silent.size();
		findings.add(new Finding("workers", !silent.isEmpty(),
				silent.isEmpty() ? alive + " alive"
						: alive + " alive, " + silent.size() + " not seen for "
								+ Output.duration(this.snapshots.workerDeadAfter) + ": "
								+ silent.stream()
									.map((worker) -> worker.workerId() + " on " + worker.host() + " pid " + worker.pid()
											+ ", heartbeat " + Output.ago(worker.heartbeatAt(), now))
									.collect(Collectors.joining("; "))));
		Map<String, Long> unhandled = snapshot.unhandled();
		findings.add(new Finding("unhandled", !unhandled.isEmpty(),
				unhandled.isEmpty() ? "every type with pending jobs has a live worker"
						: "pending jobs of types no live worker handles: " + unhandled.entrySet()
							.stream()
							.map((entry) -> entry.getKey() + " (" + entry.getValue() + ")")
							.collect(Collectors.joining(", "))));
	}

	private Finding integrity(QueueDatabase db) {
		String pragma = this.quick ? "quick_check" : "integrity_check";
		try (Connection connection = db.dataSource().getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("PRAGMA " + pragma)) {
			List<String> answers = new ArrayList<>();
			while (rows.next() && answers.size() < 10) {
				answers.add(rows.getString(1));
			}
			boolean ok = answers.equals(List.of("ok"));
			return new Finding("integrity", !ok, pragma + ": " + String.join("; ", answers));
		}
		catch (SQLException ex) {
			return new Finding("integrity", true, pragma + " failed: " + Failures.oneLine(ex));
		}
	}

	/**
	 * The server's tables as the store reports them: sizes, and live and dead rows where
	 * the server counts them (PostgreSQL), else its estimate of the rows (InnoDB's, which
	 * has no dead rows to vacuum).
	 */
	private static List<Finding> tables(Map<String, Object> details) {
		List<Finding> findings = new ArrayList<>();
		if (!(details.get("tables") instanceof Map<?, ?> tables)) {
			return findings;
		}
		tables.forEach((name, value) -> {
			if (value instanceof Map<?, ?> table) {
				String sizes = name + ": " + Output.bytes(number(table.get("bytes"))) + ", indexes "
						+ Output.bytes(number(table.get("indexBytes")));
				findings.add(table.containsKey("liveRows") ? countedRows(sizes, table) : estimatedRows(sizes, table));
			}
		});
		return findings;
	}

	private static Finding countedRows(String sizes, Map<?, ?> table) {
		long live = number(table.get("liveRows"));
		long dead = number(table.get("deadRows"));
		boolean problem = dead > DEAD_ROWS_PROBLEM && dead * 5 > live;
		return new Finding("table", problem,
				sizes + ", " + live + " live rows, " + dead + " dead" + (problem ? " (vacuum it)" : "")
						+ ((table.get("lastVacuum") != null) ? ", last vacuum " + table.get("lastVacuum") : ""));
	}

	private static Finding estimatedRows(String sizes, Map<?, ?> table) {
		return new Finding("table", false, sizes + ", about " + number(table.get("estimatedRows"))
				+ " rows (the server's estimate), " + Output.bytes(number(table.get("freeBytes"))) + " free");
	}

	private static long number(Object value) {
		return (value instanceof Number number) ? number.longValue() : 0;
	}

}
