package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.core.store.Completion;
import dev.jobqueue.core.store.LinkedJobs;
import dev.jobqueue.core.store.NewJob;

/**
 * What {@link Links} does alike on every database: a success's continuation joins the
 * completing job's chain and inserts the next steps after it. A store writes how linked
 * jobs go in and how the waiting jobs are settled.
 */
public abstract class JdbcLinks implements Links {

	/**
	 * The completing job joins a chain (its own, as the first step, if it was in none),
	 * unless a cancel of it was asked for: then it continues with nothing.
	 */
	private static final String JOIN_CHAIN = """
			UPDATE {jobs} SET chain_id = coalesce(chain_id, id), chain_index = coalesce(chain_index, 0)
			WHERE id = :job_id AND NOT cancel_requested
			""";

	/** The chain the completing job is in, once it joined one. */
	private static final String SELECT_CHAIN = """
			SELECT chain_id, chain_index FROM {jobs} WHERE id = :job_id
			""";

	private final JobEvents events;

	private final Sql joinChain;

	private final Sql selectChain;

	protected JdbcLinks(Tables tables, JobEvents events) {
		this.events = Objects.requireNonNull(events, "'events' must not be null");
		this.joinChain = tables.sql(JOIN_CHAIN);
		this.selectChain = tables.sql(SELECT_CHAIN);
	}

	/** The statement of the job timeline. */
	protected final JobEvents events() {
		return this.events;
	}

	@Override
	public final List<Long> insert(Connection connection, List<NewJob> jobs, Instant now,
			FinishedCounts.Changes changes) throws SQLException {
		return insert(connection, jobs, now, null, 0, changes);
	}

	/**
	 * Inserts linked jobs.
	 * @param chainId the chain the jobs with a chain index join, or {@code null} to start
	 * one named after the first of them
	 * @param chainBase added to each job's chain index
	 * @param changes where jobs inserted finished are counted
	 * @return the ids in request order
	 */
	protected abstract List<Long> insert(Connection connection, List<NewJob> jobs, Instant now, Long chainId,
			int chainBase, FinishedCounts.Changes changes) throws SQLException;

	@Override
	public final void continueChain(Connection connection, Completion completion, String workerId, Instant now,
			FinishedCounts.Changes changes) throws SQLException {
		long chainId;
		int chainIndex;
		// The completion holds the job's row (its update of the run), so the read sees
		// the
		// chain the update wrote.
		try (SqlStatement join = this.joinChain.prepare(connection)) {
			if (join.bind("job_id", completion.jobId()).executeUpdate() == 0) {
				event(connection, completion.jobId(), now, "CONTINUED", workerId,
						"no next step created: a cancel of the job was requested");
				return;
			}
		}
		try (SqlStatement select = this.selectChain.prepare(connection);
				ResultSet rows = select.bind("job_id", completion.jobId()).executeQuery()) {
			rows.next();
			chainId = rows.getLong(1);
			chainIndex = rows.getInt(2);
		}
		List<Long> ids = insert(connection, completion.next(), now, chainId, chainIndex, changes);
		event(connection, completion.jobId(), now, "CONTINUED", workerId, LinkedJobs.describeNext(ids));
	}

	private void event(Connection connection, long jobId, Instant now, String name, String actor, String detail)
			throws SQLException {
		try (SqlStatement event = this.events.prepare(connection)) {
			JobEvents.add(event, jobId, now, name, actor, detail);
			event.executeBatch();
		}
	}

	/**
	 * A settle a round at a time, for a store that settles every job waiting for one
	 * round of finished jobs at once (PostgreSQL, MySQL): the jobs a round ends by their
	 * policy are the finished jobs of the next. It writes the events of each job a round
	 * changed and counts those that turned pending.
	 */
	protected static final class SettleRounds {

		private final SqlStatement event;

		private final FinishedCounts.Changes changes;

		private final String actor;

		private final Instant now;

		private Map<Long, String> round;

		private Map<Long, String> next;

		private int turnedPending;

		/**
		 * @param event the batch the events go to (see {@link JobEvents#add}); the caller
		 * runs it
		 * @param finished job id → its final status, the first round
		 * @param changes where the jobs the rounds end are counted
		 */
		public SettleRounds(SqlStatement event, Map<Long, String> finished, FinishedCounts.Changes changes,
				String actor, Instant now) {
			this.event = event;
			this.changes = changes;
			this.actor = actor;
			this.now = now;
			this.next = new LinkedHashMap<>(finished);
		}

		/** Starts the next round: false when the last one ended no job. */
		public boolean next() {
			this.round = this.next;
			this.next = new LinkedHashMap<>();
			return !this.round.isEmpty();
		}

		/** The finished jobs of this round: job id → its final status. */
		public Map<Long, String> finished() {
			return this.round;
		}

		/**
		 * A job this round settled: its events, and when it ended, its count and a
		 * finished job of the next round.
		 * @param type its type
		 * @param status its status now ({@code pending}, {@code waiting}, or ended:
		 * {@code failed}, {@code cancelled})
		 * @param culprit for a job that ended, the finished job of this round that ended
		 * it
		 */
		public void settled(long id, String type, String status, Long culprit) throws SQLException {
			if ("pending".equals(status)) {
				this.turnedPending++;
				JobEvents.add(this.event, id, this.now, "DEPENDENCIES_MET", this.actor,
						"the last job it waited for finished");
			}
			else if (!"waiting".equals(status)) {
				String culpritStatus = this.round.get(culprit);
				JobEvents.add(this.event, id, this.now, "DEPENDENCY_FAILED", this.actor,
						"job " + culprit + " ended " + culpritStatus);
				JobEvents.add(this.event, id, this.now, "failed".equals(status) ? "FAILED" : "CANCELLED", this.actor,
						"failed".equals(culpritStatus) ? ErrorCodes.DEPENDENCY_FAILED_FAILED
								: ErrorCodes.DEPENDENCY_FAILED_CANCELLED);
				this.next.put(id, status);
				this.changes.finished(type, status);
			}
		}

		/** How many jobs turned pending so far. */
		public int turnedPending() {
			return this.turnedPending;
		}

	}

}
