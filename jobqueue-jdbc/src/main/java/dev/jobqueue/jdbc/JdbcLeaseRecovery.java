package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.jobqueue.core.store.ExpiredLease;

/**
 * Lease recovery on any JDBC database: runs whose lease expired (their worker died, hung
 * or lost the database) are taken back, each step its own transaction of the
 * {@link JdbcDatabase}. Either in one step, up to a limit, after a read that finds most
 * rounds have nothing to do ({@link #recoverExpired(Instant, int)}); or in two, the
 * leases seen expired first ({@link #findExpired}) and then each taken back unless it was
 * renewed since ({@link #recover}). A run taken back turns pending again, or ends failed
 * (it must not run twice, or has no attempt left) or cancelled (a cancel was asked for);
 * in the same transaction its attempt ends ({@code LEASE_EXPIRED}), its event is written,
 * the jobs waiting for a job that ended are settled, the jobs that ended are counted
 * among the finished jobs ({@link FinishedCounts}) and the runs in the outcome rollup
 * ({@link OutcomeMinutes}).
 *
 * <p>
 * A store gives the statements whose SQL differs ({@link Statements}) and, on a database
 * whose UPDATE returns no rows, how it runs them
 * ({@link #recoverExpired(Connection, Instant, int)}, {@link #recoverSeen}).
 */
public class JdbcLeaseRecovery {

	/**
	 * Up to {@code :limit} runs whose lease ended before {@code :now}, the longest
	 * expired first: {@link Statements#findExpired} on a database that needs nothing of
	 * its own.
	 */
	public static final String FIND_EXPIRED = """
			SELECT id, runs, lease_until FROM {jobs} WHERE status = 'running' AND lease_until < :now
			ORDER BY lease_until LIMIT :limit
			""";

	private static final String ANY_EXPIRED_LEASE = """
			SELECT 1 FROM {jobs} WHERE status = 'running' AND lease_until < :now LIMIT 1
			""";

	/**
	 * The statements of lease recovery whose SQL differs between databases.
	 *
	 * @param recoverExpired takes back up to {@code :limit} runs whose lease ended before
	 * {@code :now}
	 * @param recoverSeen takes back one run seen expired ({@code :job_id}, {@code :run},
	 * {@code :lease_until}), unless renewed since; both recoveries return the id, run,
	 * new status, error code and detail, whether jobs wait for the job, and its type
	 * @param findExpired up to {@code :limit} runs whose lease ended before {@code :now}:
	 * id, run, lease end
	 */
	public record Statements(String recoverExpired, String recoverSeen, String findExpired) {

	}

	/**
	 * A run taken back by lease recovery: its new status, error code and detail, whether
	 * jobs wait for the job, and the job's type.
	 */
	public record Recovered(long jobId, int run, String status, String errorCode, String errorDetail,
			boolean hasDependents, String type) {

	}

	/**
	 * What one recovery did.
	 *
	 * @param recovered how many runs it took back
	 * @param turnedPending how many waiting jobs turned pending because jobs it ended
	 * finished
	 */
	public record Outcome(int recovered, int turnedPending) {

		static final Outcome NONE = new Outcome(0, 0);

	}

	/** Makes a store's lease recovery from the job store's parts. */
	@FunctionalInterface
	public interface Factory {

		JdbcLeaseRecovery create(JdbcDatabase database, Tables tables, JobEvents events, JdbcCompletions completions);

	}

	private final JdbcDatabase database;

	private final Tables tables;

	private final JobEvents events;

	private final JdbcCompletions completions;

	private final Sql anyExpiredLease;

	private final Sql recoverExpired;

	private final Sql recoverSeen;

	private final Sql findExpired;

	public JdbcLeaseRecovery(JdbcDatabase database, Tables tables, JobEvents events, JdbcCompletions completions,
			Statements statements) {
		this.database = Objects.requireNonNull(database, "'database' must not be null");
		this.tables = Objects.requireNonNull(tables, "'tables' must not be null");
		this.events = Objects.requireNonNull(events, "'events' must not be null");
		this.completions = Objects.requireNonNull(completions, "'completions' must not be null");
		this.anyExpiredLease = tables.sql(ANY_EXPIRED_LEASE);
		this.recoverExpired = tables.sql(statements.recoverExpired());
		this.recoverSeen = tables.sql(statements.recoverSeen());
		this.findExpired = tables.sql(statements.findExpired());
	}

	/** The recovery that runs {@code statements} as they are. */
	public static Factory of(Statements statements) {
		Objects.requireNonNull(statements, "'statements' must not be null");
		return (database, tables, events, completions) -> new JdbcLeaseRecovery(database, tables, events, completions,
				statements);
	}

	/**
	 * Takes back up to {@code limit} runs whose lease ended before {@code now}. Looks for
	 * expired leases in a read first: most rounds find none and need no write lock.
	 */
	public final Outcome recoverExpired(Instant now, int limit) {
		boolean any = this.database.read("look for expired leases", (connection) -> {
			try (SqlStatement select = this.anyExpiredLease.prepare(connection)) {
				return select.bind("now", now).queryAny();
			}
		});
		if (!any) {
			return Outcome.NONE;
		}
		return takeBack(now, (connection) -> recoverExpired(connection, now, limit));
	}

	/** Up to {@code limit} leases that ended before {@code now}, for {@link #recover}. */
	public final List<ExpiredLease> findExpired(Instant now, int limit) {
		return this.database.read("look for expired leases", (connection) -> {
			List<ExpiredLease> expired = new ArrayList<>();
			try (SqlStatement select = this.findExpired.prepare(connection)) {
				select.bind("now", now).bind("limit", limit);
				try (ResultSet rows = select.executeQuery()) {
					while (rows.next()) {
						expired.add(new ExpiredLease(rows.getLong(1), rows.getInt(2),
								this.tables.dialect().instant(rows, 3)));
					}
				}
			}
			return expired;
		});
	}

	/** Takes back the runs of {@code leases}, each unless it was renewed since. */
	public final Outcome recover(Collection<ExpiredLease> leases, Instant now) {
		if (leases.isEmpty()) {
			return Outcome.NONE;
		}
		return takeBack(now, (connection) -> {
			List<Recovered> recovered = new ArrayList<>();
			for (ExpiredLease lease : leases) {
				recovered.addAll(recoverSeen(connection, lease, now));
			}
			return recovered;
		});
	}

	/**
	 * Takes back up to {@code limit} runs whose lease ended before {@code now}, in the
	 * caller's transaction ({@link Statements#recoverExpired}).
	 */
	protected List<Recovered> recoverExpired(Connection connection, Instant now, int limit) throws SQLException {
		try (SqlStatement recover = this.recoverExpired.prepare(connection)) {
			recover.bind("now", now).bind("limit", limit);
			return recovered(recover);
		}
	}

	/**
	 * Takes back one run seen expired, unless it was renewed since
	 * ({@link Statements#recoverSeen}).
	 */
	protected List<Recovered> recoverSeen(Connection connection, ExpiredLease lease, Instant now) throws SQLException {
		try (SqlStatement recover = this.recoverSeen.prepare(connection)) {
			recover.bind("now", now)
				.bind("job_id", lease.jobId())
				.bind("run", lease.run())
				.bind("lease_until", lease.leaseUntil());
			return recovered(recover);
		}
	}

	/** The statement of {@link #recoverExpired}, for a store that runs it its own way. */
	protected final Sql recoverExpiredStatement() {
		return this.recoverExpired;
	}

	/** The statement of {@link #recoverSeen}, for a store that runs it its own way. */
	protected final Sql recoverSeenStatement() {
		return this.recoverSeen;
	}

	/**
	 * The rows of a recovery query: id, run, status, error code, detail, whether jobs
	 * wait for the job, type.
	 */
	protected static List<Recovered> recovered(SqlStatement query) throws SQLException {
		List<Recovered> recovered = new ArrayList<>();
		try (ResultSet rows = query.executeQuery()) {
			while (rows.next()) {
				recovered.add(new Recovered(rows.getLong(1), rows.getInt(2), rows.getString(3), rows.getString(4),
						rows.getString(5), rows.getBoolean(6), rows.getString(7)));
			}
		}
		return recovered;
	}

	/**
	 * One transaction: the runs {@code recovery} takes back, their attempt ends and
	 * events, the settle of the jobs waiting for those that ended, and last the counts.
	 */
	private Outcome takeBack(Instant now, SqlWork<List<Recovered>> recovery) {
		return this.database.write("recover jobs with expired leases", (connection) -> {
			Map<Long, String> finished = new LinkedHashMap<>();
			List<Recovered> recovered = recovery.run(connection);
			try (SqlStatement attempt = this.completions.prepareFinishAttempt(connection);
					SqlStatement event = this.events.prepare(connection)) {
				recordRecovered(recovered, attempt, event, now, finished);
				attempt.executeBatch();
				event.executeBatch();
			}
			FinishedCounts.Changes changes = new FinishedCounts.Changes();
			recovered.forEach((run) -> changes.finished(run.type(), run.status()));
			int turnedPending = this.completions.settle(connection, finished, "recovery", now, changes);
			this.completions.finishedCounts().add(connection, OutcomeMinutes.RECOVERY, changes);
			OutcomeMinutes.Counts counts = new OutcomeMinutes.Counts();
			recovered.forEach((run) -> counts.failed(run.status()));
			this.completions.outcomeMinutes().add(connection, OutcomeMinutes.RECOVERY, now, counts);
			return new Outcome(recovered.size(), turnedPending);
		});
	}

	/** Adds the attempt ends and events of the runs taken back. */
	private static void recordRecovered(List<Recovered> recovered, SqlStatement attempt, SqlStatement event,
			Instant now, Map<Long, String> finished) throws SQLException {
		for (Recovered run : recovered) {
			long id = run.jobId();
			String status = run.status();
			String detail = run.errorDetail();
			if (!"pending".equals(status) && run.hasDependents()) {
				finished.put(id, status);
			}
			JdbcCompletions.finishAttempt(attempt, id, run.run(), "LEASE_EXPIRED", "LEASE_EXPIRED:WORKER_LOST", detail,
					null, now);
			String eventName = switch (status) {
				case "pending" -> "RECOVERED";
				case "cancelled" -> "CANCELLED";
				default -> "FAILED";
			};
			JobEvents.add(event, id, now, eventName, "recovery", run.errorCode() + ": " + detail);
		}
	}

}
