package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

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
	public final List<Long> insert(Connection connection, List<NewJob> jobs, Instant now) throws SQLException {
		return insert(connection, jobs, now, null, 0);
	}

	/**
	 * Inserts linked jobs.
	 * @param chainId the chain the jobs with a chain index join, or {@code null} to start
	 * one named after the first of them
	 * @param chainBase added to each job's chain index
	 * @return the ids in request order
	 */
	protected abstract List<Long> insert(Connection connection, List<NewJob> jobs, Instant now, Long chainId,
			int chainBase) throws SQLException;

	@Override
	public final void continueChain(Connection connection, Completion completion, String workerId, Instant now)
			throws SQLException {
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
		List<Long> ids = insert(connection, completion.next(), now, chainId, chainIndex);
		event(connection, completion.jobId(), now, "CONTINUED", workerId, LinkedJobs.describeNext(ids));
	}

	private void event(Connection connection, long jobId, Instant now, String name, String actor, String detail)
			throws SQLException {
		try (SqlStatement event = this.events.prepare(connection)) {
			JobEvents.add(event, jobId, now, name, actor, detail);
			event.executeBatch();
		}
	}

}
