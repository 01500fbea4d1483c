package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.Set;

import dev.jobqueue.core.store.JobStore;
import dev.jobqueue.core.store.LeaseRenewal;
import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.core.store.RunningJobRef;
import dev.jobqueue.jdbc.JdbcJobStore;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.Sql;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * The {@link JobStore} on MySQL and MariaDB: the shared {@link JdbcJobStore} with MySQL's
 * parts: {@link MysqlJobInserts}, {@link MysqlClaims} ({@code FOR UPDATE SKIP LOCKED}),
 * {@link MysqlCompletions}, {@link MysqlLinks}, {@link MysqlLeaseRecovery} (expired runs
 * locked, taken back and read); leases renewed in one statement joined with the runs as a
 * JSON table.
 *
 * <p>
 * MySQL has no {@code LISTEN/NOTIFY}, so there is no change token: workers of other
 * processes see new jobs at their next poll ({@code jobqueue.worker.poll-interval}); this
 * process's worker is woken at once by its own enqueues, and here by jobs that turned
 * pending when jobs they waited for finished.
 */
public final class MysqlJobStore extends JdbcJobStore {

	/** The lease, and {@code heartbeat_at} only of runs waiting for a slot. */
	static final String RENEW_LEASES = """
			UPDATE {jobs} j
			JOIN JSON_TABLE(:runs, '$[*]' COLUMNS (id BIGINT PATH '$[0]', run INT PATH '$[1]', waiting INT PATH '$[2]')) r
			    ON j.id = r.id AND j.runs = r.run
			SET j.lease_until = :lease_until, j.heartbeat_at = CASE WHEN r.waiting = 1 THEN :now ELSE j.heartbeat_at END
			WHERE j.status = 'running' AND j.worker_id = :worker_id
			""";

	static final String RENEWED = """
			SELECT j.id, j.cancel_requested FROM {jobs} j
			JOIN JSON_TABLE(:runs, '$[*]' COLUMNS (id BIGINT PATH '$[0]', run INT PATH '$[1]')) r
			    ON j.id = r.id AND j.runs = r.run
			WHERE j.status = 'running' AND j.worker_id = :worker_id
			""";

	static final String HEARTBEAT = """
			UPDATE {jobs} SET heartbeat_at = :now, lease_until = :lease_until
			WHERE id = :job_id AND runs = :run AND status = 'running' AND worker_id = :worker_id
			""";

	static final String CANCEL_REQUESTED = """
			SELECT cancel_requested FROM {jobs} WHERE id = :job_id
			""";

	private final MysqlDatabase database;

	private final MysqlLinks links;

	private final Sql renewLeases;

	private final Sql renewed;

	private final Sql heartbeat;

	private final Sql cancelRequested;

	private volatile QueueSignals signals;

	public MysqlJobStore(MysqlDatabase database, Tables tables) {
		this(database, tables, new JobEvents(tables));
	}

	private MysqlJobStore(MysqlDatabase database, Tables tables, JobEvents events) {
		this(database, tables, events, new MysqlLinks(tables, events));
	}

	private MysqlJobStore(MysqlDatabase database, Tables tables, JobEvents events, MysqlLinks links) {
		super(database, tables, events, new MysqlClaims(tables), new MysqlJobInserts(tables, links),
				MysqlCompletions.create(tables, events, links), MysqlLeaseRecovery::new);
		this.database = database;
		this.links = links;
		this.renewLeases = tables.sql(RENEW_LEASES);
		this.renewed = tables.sql(RENEWED);
		this.heartbeat = tables.sql(HEARTBEAT);
		this.cancelRequested = tables.sql(CANCEL_REQUESTED);
	}

	MysqlLinks links() {
		return this.links;
	}

	@Override
	public MysqlDatabase database() {
		return this.database;
	}

	/** Where jobs that turned pending in this process are told, so its worker wakes. */
	void signals(QueueSignals signals) {
		this.signals = signals;
	}

	@Override
	protected void jobsTurnedPending(int count) {
		QueueSignals signals = this.signals;
		if (count > 0 && signals != null) {
			signals.jobsEnqueued();
		}
	}

	@Override
	protected LeaseRenewal renewLeases(Connection connection, String workerId, Collection<RunningJobRef> runs,
			Instant now, Instant leaseUntil) throws SQLException {
		StringBuilder json = new StringBuilder(runs.size() * 24).append('[');
		for (RunningJobRef run : runs) {
			json.append((json.length() > 1) ? "," : "")
				.append('[')
				.append(run.jobId())
				.append(',')
				.append(run.run())
				.append(',')
				.append(run.waiting() ? 1 : 0)
				.append(']');
		}
		String list = json.append(']').toString();
		try (SqlStatement renew = this.renewLeases.prepare(connection)) {
			renew.bind("runs", list)
				.bind("lease_until", leaseUntil)
				.bind("now", now)
				.bind("worker_id", workerId)
				.executeUpdate();
		}
		try (SqlStatement select = this.renewed.prepare(connection);
				ResultSet rows = select.bind("runs", list).bind("worker_id", workerId).executeQuery()) {
			return renewal(runs, rows);
		}
	}

	@Override
	protected LeaseRenewal heartbeat(Connection connection, String workerId, RunningJobRef run, Instant now,
			Instant leaseUntil) throws SQLException {
		try (SqlStatement beat = this.heartbeat.prepare(connection)) {
			beat.bind("now", now)
				.bind("lease_until", leaseUntil)
				.bind("job_id", run.jobId())
				.bind("run", run.run())
				.bind("worker_id", workerId);
			if (beat.executeUpdate() == 0) {
				return new LeaseRenewal(Set.of(), Set.of(run.jobId()));
			}
		}
		try (SqlStatement select = this.cancelRequested.prepare(connection);
				ResultSet rows = select.bind("job_id", run.jobId()).executeQuery()) {
			boolean requested = rows.next() && rows.getBoolean(1);
			return new LeaseRenewal(requested ? Set.of(run.jobId()) : Set.of(), Set.of());
		}
	}

}
