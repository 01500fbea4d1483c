package dev.jobqueue.postgresql;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.jobqueue.core.store.NewJob;
import dev.jobqueue.jdbc.JdbcJobInserts;
import dev.jobqueue.jdbc.Links;
import dev.jobqueue.jdbc.SqlStatement;
import dev.jobqueue.jdbc.Tables;

/**
 * PostgreSQL's two inserts, each one statement with its {@code ENQUEUED} events and a
 * notification that wakes the other processes' workers on commit: a row at a time
 * ({@code ON CONFLICT DO NOTHING} on the unfinished dedup keys), or many jobs without
 * dedup keys from arrays.
 */
final class PostgresJobInserts extends JdbcJobInserts {

	/**
	 * Wakes listeners once per transaction: an uncorrelated subquery runs once, and only
	 * if a row was inserted.
	 */
	private static final String NOTIFY = "(SELECT pg_notify(:channel, :message))";

	static final String INSERT_JOB = """
			WITH inserted AS (
			    INSERT INTO {jobs} (type, status, priority, payload, dedup_key, max_attempts, run_at, created_at, trace_parent,
			        job_key)
			    VALUES (:type, 'pending', :priority, :payload, :dedup_key, :max_attempts, :run_at, :now, :trace_parent,
			        :job_key)
			    ON CONFLICT (dedup_key) WHERE dedup_key IS NOT NULL AND status IN ('pending', 'running') DO NOTHING
			    RETURNING id
			), event_rows AS (
			    INSERT INTO {events} (job_id, at, event) SELECT id, :now, 'ENQUEUED' FROM inserted
			)
			SELECT id, %s FROM inserted
			"""
		.formatted(NOTIFY);

	/**
	 * Many jobs without dedup keys in one statement; ids come in request order (identity
	 * follows ORDER BY).
	 */
	static final String INSERT_JOBS = """
			WITH inserted AS (
			    INSERT INTO {jobs} (type, status, priority, payload, max_attempts, run_at, created_at, trace_parent, job_key)
			    SELECT type, 'pending', priority, payload, max_attempts, run_at::timestamptz, :now, trace_parent, job_key
			    FROM unnest(:types::text[], :priorities::int[], :payloads::text[], :max_attempts::int[],
			                :run_ats::text[], :trace_parents::text[], :job_keys::text[])
			         WITH ORDINALITY AS j(type, priority, payload, max_attempts, run_at, trace_parent, job_key, ord)
			    ORDER BY ord
			    RETURNING id
			), event_rows AS (
			    INSERT INTO {events} (job_id, at, event) SELECT id, :now, 'ENQUEUED' FROM inserted
			)
			SELECT id, %s FROM inserted ORDER BY id
			"""
		.formatted(NOTIFY);

	private final PostgresNotifications notifications;

	private final String channel;

	PostgresJobInserts(Tables tables, Links links, PostgresNotifications notifications) {
		super(tables, links, INSERT_JOB, INSERT_JOBS);
		this.notifications = notifications;
		this.channel = PostgresNotifications.channel(tables);
	}

	@Override
	protected List<Long> insertEach(Connection connection, List<NewJob> jobs, Instant now) throws SQLException {
		List<Long> ids = new ArrayList<>(jobs.size());
		try (SqlStatement insert = this.insertJob.prepare(connection)) {
			for (NewJob job : jobs) {
				bindJob(insert, job, now).bind("dedup_key", job.dedupKey());
				notification(insert);
				Long id = null;
				try (ResultSet rows = insert.executeQuery()) {
					if (rows.next()) {
						id = rows.getLong(1);
					}
				}
				ids.add(id);
			}
		}
		return ids;
	}

	@Override
	protected List<Long> insertWithoutDedupKeys(Connection connection, List<NewJob> jobs, Instant now)
			throws SQLException {
		int size = jobs.size();
		String[] types = new String[size];
		Integer[] priorities = new Integer[size];
		String[] payloads = new String[size];
		Integer[] maxAttempts = new Integer[size];
		String[] runAts = new String[size];
		String[] traceParents = new String[size];
		String[] keys = new String[size];
		for (int i = 0; i < size; i++) {
			NewJob job = jobs.get(i);
			types[i] = job.type();
			priorities[i] = job.priority();
			payloads[i] = job.payload();
			maxAttempts[i] = job.maxAttempts();
			runAts[i] = PostgresDialect.timestamp(job.runAt()).toString();
			traceParents[i] = job.traceContext();
			keys[i] = job.key();
		}
		try (SqlStatement insert = this.insertJobsWithoutDedupKeys.prepare(connection)) {
			insert.bindArray("types", "text", types)
				.bindArray("priorities", "int4", priorities)
				.bindArray("payloads", "text", payloads)
				.bindArray("max_attempts", "int4", maxAttempts)
				.bindArray("run_ats", "text", runAts)
				.bindArray("trace_parents", "text", traceParents)
				.bindArray("job_keys", "text", keys)
				.bind("now", now);
			notification(insert);
			List<Long> ids = new ArrayList<>(size);
			try (ResultSet rows = insert.executeQuery()) {
				while (rows.next()) {
					ids.add(rows.getLong(1));
				}
			}
			return ids;
		}
	}

	private void notification(SqlStatement statement) throws SQLException {
		statement.bind("channel", this.channel)
			.bind("message", this.notifications.message(PostgresNotifications.ENQUEUED));
	}

}
