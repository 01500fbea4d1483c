package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.core.store.LinkedJobs;
import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.jdbc.FinishedCounts;
import dev.jobqueue.jdbc.JdbcLinks;
import dev.jobqueue.jdbc.JobEvents;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * Chains and dependencies on PostgreSQL (docs/chains.md), inside a transaction the caller
 * holds: jobs that wait or form a chain are inserted here, a success's continuation joins
 * its chain here, and every path that finishes a job calls {@link #settle} so the jobs
 * waiting for it count down, become pending, or end by their policy, in the same
 * transaction.
 *
 * <p>
 * Concurrency, at READ COMMITTED:
 * <ul>
 * <li>An enqueue locks the jobs it waits for {@code FOR SHARE} before it reads their
 * status. A completion of one of them either committed before (the lock waits for it,
 * then the status read is the final one) or waits for the enqueue to commit (its settle
 * statement, which starts later, then sees the new dependency row). So no dependency row
 * is ever missed by the settle of the job it names.</li>
 * <li>Two transactions finishing children of one join both update the join's row: the row
 * lock serialises them, and the second re-reads the row the first committed before it
 * computes {@code waiting_for - n} and the new status ({@code UPDATE ... RETURNING}
 * reports the status it wrote). Exactly one of them turns the join pending.</li>
 * <li>The settle statement marks the finished jobs' dependency rows settled as it counts
 * them, so a job finishing again after a retry finds nothing left to count. Those rows
 * are the finished job's own: no other transaction settles them meanwhile, since a job
 * finishes once per run.</li>
 * <li>The settle statement locks the waiting jobs it changes in id order first, so
 * batches settling overlapping joins take their locks in one order and do not
 * deadlock.</li>
 * </ul>
 *
 * <p>
 * Over 400 lines: each statement is a text block beside the code that binds it, and the
 * linked insert binds every column as an array, so a fan-out of any width is one
 * statement.
 */
final class PostgresLinks extends JdbcLinks {

	private static final String NOTIFY = "(SELECT pg_notify(:channel, :message))";

	/**
	 * The jobs waited for, locked so none finishes unseen while the waiting job is
	 * inserted.
	 */
	private static final String LOCK_EXISTING = """
			SELECT id, status FROM {jobs} WHERE id = ANY(:ids::bigint[]) ORDER BY id FOR SHARE
			""";

	/**
	 * Ids taken ahead of the insert, so a chain's id and a join's dependency rows are
	 * known before the rows are written (one statement for any number of jobs).
	 */
	private static final String ALLOCATE_IDS = """
			SELECT nextval(pg_get_serial_sequence(:table, 'id')) FROM generate_series(1, :count)
			""";

	static final String INSERT_LINKED = """
			WITH inserted AS (
			    INSERT INTO {jobs} (id, type, status, priority, payload, max_attempts, run_at, created_at,
			        trace_parent, chain_id, chain_index, waiting_for, dependency_policy, finished_at, error_code,
			        error_detail, job_key)
			    OVERRIDING SYSTEM VALUE
			    SELECT id, type, status, priority, payload, max_attempts, run_at::timestamptz, :now,
			        trace_parent, chain_id, chain_index, waiting_for, dependency_policy,
			        CASE WHEN status IN ('failed', 'cancelled') THEN :now::timestamptz END, error_code, error_detail,
			        job_key
			    FROM unnest(:ids::bigint[], :types::text[], :statuses::text[], :priorities::int[], :payloads::text[],
			                :max_attempts::int[], :run_ats::text[], :trace_parents::text[],
			                :chain_ids::bigint[], :chain_indexes::int[], :waiting_fors::int[], :policies::text[],
			                :error_codes::text[], :error_details::text[], :job_keys::text[])
			         AS j(id, type, status, priority, payload, max_attempts, run_at, trace_parent, chain_id,
			              chain_index, waiting_for, dependency_policy, error_code, error_detail, job_key)
			    ORDER BY id
			    RETURNING id
			), dependency_rows AS (
			    INSERT INTO {dependencies} (depends_on, job_id, settled)
			    SELECT d.depends_on, d.job_id, d.settled
			    FROM unnest(:depends_on::bigint[], :dependents::bigint[], :settled::boolean[]) AS d(depends_on, job_id, settled)
			    WHERE d.job_id IN (SELECT id FROM inserted)
			    ON CONFLICT DO NOTHING
			), event_rows AS (
			    INSERT INTO {events} (job_id, at, event, detail)
			    SELECT e.job_id, :now, e.event, e.detail
			    FROM unnest(:event_jobs::bigint[], :event_names::text[], :event_details::text[]) WITH ORDINALITY
			         AS e(job_id, event, detail, ord)
			    WHERE e.job_id IN (SELECT id FROM inserted)
			    ORDER BY e.ord
			)
			SELECT id, %s FROM inserted
			"""
		.formatted(NOTIFY);

	/**
	 * The fan-in statement, for every job finished in one round: the dependency table's
	 * primary key finds the waiting jobs (one probe per finished job), which are locked
	 * in id order, then each is updated once, by how many of the jobs it waits for
	 * finished and how. A success counts down; a failure or cancel counts down under
	 * policy {@code run} and otherwise ends the job ({@code fail} → failed, else
	 * cancelled). A job left with nothing to wait for turns pending, due no earlier than
	 * now (waiting is not lateness). SET expressions read the row as locked, so
	 * concurrent settles of one join each subtract from the other's result.
	 *
	 * <p>
	 * Only dependency rows not yet settled count, and the statement marks them settled as
	 * it counts them: a dependency that is retried after it finished, and finishes again,
	 * was counted the first time and is not counted again. Rows of waiting jobs that no
	 * longer wait are marked too: the finished job has nothing left to tell them.
	 */
	static final String SETTLE = """
			WITH finished AS (
			    SELECT f.id, f.status FROM unnest(:ids::bigint[], :statuses::text[]) AS f(id, status)
			), marked AS (
			    UPDATE {dependencies} d SET settled = true
			    FROM finished f
			    WHERE d.depends_on = f.id AND NOT d.settled
			    RETURNING d.depends_on, d.job_id
			), per_job AS (
			    SELECT d.job_id,
			           count(*) FILTER (WHERE f.status = 'succeeded') AS succeeded,
			           count(*) FILTER (WHERE f.status = 'failed') AS failed,
			           count(*) FILTER (WHERE f.status <> 'succeeded') AS unsuccessful,
			           coalesce(min(f.id) FILTER (WHERE f.status = 'failed'),
			                    min(f.id) FILTER (WHERE f.status <> 'succeeded')) AS culprit
			    FROM finished f JOIN marked d ON d.depends_on = f.id
			    GROUP BY d.job_id
			), locked AS (
			    SELECT w.id FROM {jobs} w
			    WHERE w.id = ANY(ARRAY(SELECT job_id FROM per_job)) AND w.status = 'waiting'
			    ORDER BY w.id
			    FOR UPDATE
			)
			UPDATE {jobs} j
			SET status = CASE WHEN p.unsuccessful > 0 AND j.dependency_policy IS DISTINCT FROM 'run'
			                      THEN CASE WHEN j.dependency_policy = 'fail' THEN 'failed' ELSE 'cancelled' END
			                  WHEN j.waiting_for <= p.succeeded
			                       + CASE WHEN j.dependency_policy = 'run' THEN p.unsuccessful ELSE 0 END
			                      THEN 'pending'
			                  ELSE 'waiting' END,
			    waiting_for = CASE WHEN p.unsuccessful > 0 AND j.dependency_policy IS DISTINCT FROM 'run' THEN 0
			                       ELSE greatest(0, j.waiting_for - p.succeeded
			                            - CASE WHEN j.dependency_policy = 'run' THEN p.unsuccessful ELSE 0 END) END,
			    run_at = CASE WHEN NOT (p.unsuccessful > 0 AND j.dependency_policy IS DISTINCT FROM 'run')
			                       AND j.waiting_for <= p.succeeded
			                           + CASE WHEN j.dependency_policy = 'run' THEN p.unsuccessful ELSE 0 END
			                       AND j.run_at < :now
			                  THEN :now::timestamptz ELSE j.run_at END,
			    finished_at = CASE WHEN p.unsuccessful > 0 AND j.dependency_policy IS DISTINCT FROM 'run'
			                       THEN :now::timestamptz ELSE j.finished_at END,
			    error_code = CASE WHEN p.unsuccessful > 0 AND j.dependency_policy IS DISTINCT FROM 'run'
			                      THEN CASE WHEN p.failed > 0 THEN 'DEPENDENCY_FAILED:FAILED'
			                                ELSE 'DEPENDENCY_FAILED:CANCELLED' END
			                      ELSE j.error_code END,
			    error_detail = CASE WHEN p.unsuccessful > 0 AND j.dependency_policy IS DISTINCT FROM 'run'
			                        THEN 'Job ' || p.culprit || ', which it waited for, ended '
			                             || CASE WHEN p.failed > 0 THEN 'failed' ELSE 'cancelled' END
			                        ELSE j.error_detail END
			FROM per_job p
			WHERE j.id = p.job_id AND j.id = ANY(ARRAY(SELECT id FROM locked)) AND j.status = 'waiting'
			RETURNING j.id, j.status, p.culprit, j.type
			""";

	private static final String NOTIFY_ENQUEUED = """
			SELECT pg_notify(:channel, :message)
			""";

	private final Tables tables;

	private final PostgresNotifications notifications;

	PostgresLinks(Tables tables, JobEvents events, PostgresNotifications notifications) {
		super(tables, events);
		this.tables = tables;
		this.notifications = notifications;
	}

	/**
	 * @param chainId the chain that jobs with a chain index join, or {@code null} to
	 * start one named after the first of them
	 * @param chainBase added to each job's chain index
	 */
	@Override
	protected List<Long> insert(Connection connection, List<NewJob> jobs, Instant now, Long chainId, int chainBase,
			FinishedCounts.Changes changes) throws SQLException {
		LinkedJobs.refuseDedupKeys(jobs);
		Map<Long, String> statusById = lockExisting(connection, jobs);
		int size = jobs.size();
		List<Long> ids = allocateIds(connection, size);
		List<String> statuses = new ArrayList<>(size);
		Long chain = chainId;
		Batch batch = new Batch(size);
		for (int k = 0; k < size; k++) {
			NewJob job = jobs.get(k);
			long id = ids.get(k);
			Map<Long, String> dependencyStatus = new LinkedHashMap<>();
			for (long dependency : job.after()) {
				dependencyStatus.put(dependency, statusById.get(dependency));
			}
			for (int position : job.afterInBatch()) {
				dependencyStatus.putIfAbsent(ids.get(position), statuses.get(position));
			}
			LinkedJobs.Start outcome = LinkedJobs.start(job.dependencyPolicy(), dependencyStatus.values());
			if (job.chainIndex() != null && chain == null) {
				chain = id;
			}
			batch.add(k, id, job, outcome, (job.chainIndex() != null) ? chain : null,
					(job.chainIndex() != null) ? chainBase + job.chainIndex() : null,
					dependencyStatus.isEmpty() ? null : job.dependencyPolicy().dbValue());
			for (Map.Entry<Long, String> waited : dependencyStatus.entrySet()) {
				batch.dependsOn.add(waited.getKey());
				batch.dependents.add(id);
				// A dependency finished already is counted now, by the outcome above.
				batch.settled.add(LinkedJobs.finished(waited.getValue()));
			}
			batch.event(id, "ENQUEUED",
					dependencyStatus.isEmpty() ? null : "waits for " + dependencyStatus.size() + " job(s)");
			if (outcome.errorCode() != null) {
				changes.finished(job.type(), outcome.status());
				batch.event(id, "DEPENDENCY_FAILED", outcome.errorDetail());
				batch.event(id, "failed".equals(outcome.status()) ? "FAILED" : "CANCELLED", outcome.errorCode());
			}
			statuses.add(outcome.status());
		}
		try (SqlStatement insert = this.tables.sql(INSERT_LINKED).prepare(connection)) {
			batch.bind(insert).bind("now", now).bind("channel", PostgresNotifications.channel(this.tables));
			insert.bind("message", this.notifications.message(PostgresNotifications.ENQUEUED));
			insert.executeQuery().close();
		}
		return ids;
	}

	private List<Long> allocateIds(Connection connection, int count) throws SQLException {
		List<Long> ids = new ArrayList<>(count);
		try (SqlStatement allocate = this.tables.sql(ALLOCATE_IDS).prepare(connection)) {
			allocate.bind("table", this.tables.jobs()).bind("count", count);
			try (ResultSet rows = allocate.executeQuery()) {
				while (rows.next()) {
					ids.add(rows.getLong(1));
				}
			}
		}
		// Ids in request order, as the plain insert returns them.
		ids.sort(null);
		return ids;
	}

	private Map<Long, String> lockExisting(Connection connection, List<NewJob> jobs) throws SQLException {
		Set<Long> wanted = new TreeSet<>();
		jobs.forEach((job) -> wanted.addAll(job.after()));
		Map<Long, String> found = new HashMap<>();
		if (wanted.isEmpty()) {
			return found;
		}
		try (SqlStatement select = this.tables.sql(LOCK_EXISTING).prepare(connection)) {
			select.bindArray("ids", "int8", wanted.toArray());
			try (ResultSet rows = select.executeQuery()) {
				while (rows.next()) {
					found.put(rows.getLong(1), rows.getString(2));
				}
			}
		}
		wanted.removeAll(found.keySet());
		if (!wanted.isEmpty()) {
			throw new JobQueueException("Cannot wait for job(s) " + wanted + ": no such job in this queue (table "
					+ this.tables.jobs() + "). Pass ids that enqueue returned for this queue (a job of another table "
					+ "prefix or schema is not one of its jobs, and a deleted job is gone); nothing was enqueued.");
		}
		return found;
	}

	/** The columns of one insert, as arrays. */
	private static final class Batch {

		final Long[] ids;

		final String[] types;

		final String[] statuses;

		final Integer[] priorities;

		final String[] payloads;

		final Integer[] maxAttempts;

		final String[] runAts;

		final String[] traceParents;

		final Long[] chainIds;

		final Integer[] chainIndexes;

		final Integer[] waitingFors;

		final String[] policies;

		final String[] errorCodes;

		final String[] errorDetails;

		final String[] keys;

		final List<Long> dependsOn = new ArrayList<>();

		final List<Long> dependents = new ArrayList<>();

		final List<Boolean> settled = new ArrayList<>();

		final List<Long> eventJobs = new ArrayList<>();

		final List<String> eventNames = new ArrayList<>();

		final List<String> eventDetails = new ArrayList<>();

		Batch(int size) {
			this.ids = new Long[size];
			this.types = new String[size];
			this.statuses = new String[size];
			this.priorities = new Integer[size];
			this.payloads = new String[size];
			this.maxAttempts = new Integer[size];
			this.runAts = new String[size];
			this.traceParents = new String[size];
			this.chainIds = new Long[size];
			this.chainIndexes = new Integer[size];
			this.waitingFors = new Integer[size];
			this.policies = new String[size];
			this.errorCodes = new String[size];
			this.errorDetails = new String[size];
			this.keys = new String[size];
		}

		void add(int k, long id, NewJob job, LinkedJobs.Start outcome, Long chainId, Integer chainIndex,
				String policy) {
			this.ids[k] = id;
			this.types[k] = job.type();
			this.statuses[k] = outcome.status();
			this.priorities[k] = job.priority();
			this.payloads[k] = job.payload();
			this.maxAttempts[k] = job.maxAttempts();
			this.runAts[k] = PostgresDialect.timestamp(job.runAt()).toString();
			this.traceParents[k] = job.traceContext();
			this.chainIds[k] = chainId;
			this.chainIndexes[k] = chainIndex;
			this.waitingFors[k] = outcome.waitingFor();
			this.policies[k] = policy;
			this.errorCodes[k] = outcome.errorCode();
			this.errorDetails[k] = outcome.errorDetail();
			this.keys[k] = job.key();
		}

		void event(long jobId, String name, String detail) {
			this.eventJobs.add(jobId);
			this.eventNames.add(name);
			this.eventDetails.add(detail);
		}

		SqlStatement bind(SqlStatement insert) throws SQLException {
			return insert.bindArray("ids", "int8", this.ids)
				.bindArray("types", "text", this.types)
				.bindArray("statuses", "text", this.statuses)
				.bindArray("priorities", "int4", this.priorities)
				.bindArray("payloads", "text", this.payloads)
				.bindArray("max_attempts", "int4", this.maxAttempts)
				.bindArray("run_ats", "text", this.runAts)
				.bindArray("trace_parents", "text", this.traceParents)
				.bindArray("chain_ids", "int8", this.chainIds)
				.bindArray("chain_indexes", "int4", this.chainIndexes)
				.bindArray("waiting_fors", "int4", this.waitingFors)
				.bindArray("policies", "text", this.policies)
				.bindArray("error_codes", "text", this.errorCodes)
				.bindArray("error_details", "text", this.errorDetails)
				.bindArray("job_keys", "text", this.keys)
				.bindArray("depends_on", "int8", this.dependsOn.toArray())
				.bindArray("dependents", "int8", this.dependents.toArray())
				.bindArray("settled", "bool", this.settled.toArray())
				.bindArray("event_jobs", "int8", this.eventJobs.toArray())
				.bindArray("event_names", "text", this.eventNames.toArray())
				.bindArray("event_details", "text", this.eventDetails.toArray());
		}

	}

	/**
	 * Settles the jobs waiting for jobs that just finished: counts them down, turns those
	 * with nothing left to wait for pending, and ends those a failure ends by their
	 * policy, then settles the jobs waiting for those in turn (one statement per round).
	 * Sends a notification when a job turned pending, so workers of other processes claim
	 * it at once.
	 * @param finished job id → its final status ({@code succeeded}, {@code failed},
	 * {@code cancelled}); only jobs that may have dependents need to be passed
	 * @param changes where the jobs it ends are counted
	 * @return how many jobs turned pending
	 */
	@Override
	public int settle(Connection connection, Map<Long, String> finished, String actor, Instant now,
			FinishedCounts.Changes changes) throws SQLException {
		int turnedPending;
		try (SqlStatement event = events().prepare(connection)) {
			SettleRounds rounds = new SettleRounds(event, finished, changes, actor, now);
			while (rounds.next()) {
				try (SqlStatement settle = this.tables.sql(SETTLE).prepare(connection)) {
					settle.bindArray("ids", "int8", rounds.finished().keySet().toArray())
						.bindArray("statuses", "text", rounds.finished().values().toArray())
						.bind("now", now);
					try (ResultSet rows = settle.executeQuery()) {
						while (rows.next()) {
							rounds.settled(rows.getLong(1), rows.getString(4), rows.getString(2), rows.getLong(3));
						}
					}
				}
			}
			event.executeBatch();
			turnedPending = rounds.turnedPending();
		}
		if (turnedPending > 0) {
			try (SqlStatement notify = this.tables.sql(NOTIFY_ENQUEUED).prepare(connection)) {
				notify.bind("channel", PostgresNotifications.channel(this.tables))
					.bind("message", this.notifications.message(PostgresNotifications.ENQUEUED));
				notify.executeQuery().close();
			}
		}
		return turnedPending;
	}

}
