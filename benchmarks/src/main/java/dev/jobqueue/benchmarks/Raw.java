package dev.jobqueue.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The raw SQLite baselines: plain JDBC on sqlite-jdbc, the queue's schema and pragmas,
 * and the same rows per job as the queue writes (the job row and an ENQUEUED event on
 * enqueue; an attempt row and a CLAIMED event on claim; the job update, the attempt
 * update and a SUCCEEDED event on completion). What the queue adds on top (validation,
 * JSON, pooling, the worker loop, thread hand-offs) is what the ratios show.
 * <p>
 * Each thread keeps its own connection and prepared statements for the whole run, and
 * writers in this process take one lock before {@code BEGIN IMMEDIATE}: the best a
 * hand-written program can do with one SQLite file.
 */
final class Raw {

	static final String PAYLOAD = "{\"n\":1}";

	private static final String INSERT_JOB = """
			INSERT INTO jobs (type, status, priority, payload, max_attempts, run_at, created_at)
			VALUES (?, 'pending', 0, ?, 3, ?, ?)
			""";

	private static final String INSERT_JOB_RETURNING = INSERT_JOB + " RETURNING id";

	private static final String INSERT_EVENT = "INSERT INTO job_events (job_id, at, event, actor, detail) VALUES (?, ?, ?, ?, ?)";

	private static final String CLAIM = """
			UPDATE jobs
			SET status = 'running', runs = runs + 1, attempts = attempts + 1, worker_id = ?, started_at = ?,
			    heartbeat_at = ?, lease_until = ?
			WHERE id IN (
			    SELECT id FROM jobs INDEXED BY jobs_claim_type_idx
			    WHERE status = 'pending' AND job_key IS NULL AND type = ? AND run_at <= ?
			    ORDER BY priority DESC, run_at, id
			    LIMIT ?)
			RETURNING id, runs, attempts
			""";

	private static final String INSERT_ATTEMPT = "INSERT INTO job_attempts (job_id, run, attempt, worker_id, started_at) VALUES (?, ?, ?, ?, ?)";

	private static final String MARK_SUCCEEDED = """
			UPDATE jobs SET status = 'succeeded', finished_at = ?, lease_until = NULL
			WHERE id = ? AND runs = ? AND status = 'running'
			""";

	private static final String FINISH_ATTEMPT = "UPDATE job_attempts SET finished_at = ?, outcome = 'SUCCEEDED' WHERE job_id = ? AND run = ?";

	private Raw() {
	}

	/**
	 * One job per transaction (job row and ENQUEUED event) from {@code threads} threads;
	 * jobs per second.
	 */
	static double singleInserts(Db db, int threads, int jobs) {
		return singleInserts(db, threads, jobs, true);
	}

	/**
	 * One job per transaction from {@code threads} threads, with or without its ENQUEUED
	 * event: the job row alone is the least a hand-written queue table could write.
	 */
	static double singleInserts(Db db, int threads, int jobs, boolean withEvent) {
		ReentrantLock writeLock = new ReentrantLock();
		return Timing.jobsPerSecond(jobs, runThreads(threads, (thread) -> {
			Connection opened = db.connect();
			return () -> {
				try (Connection connection = opened;
						Statement tx = connection.createStatement();
						PreparedStatement insert = connection.prepareStatement(INSERT_JOB_RETURNING);
						PreparedStatement event = connection.prepareStatement(INSERT_EVENT)) {
					for (int i = 0; i < share(jobs, threads, thread); i++) {
						long now = System.currentTimeMillis();
						writeLock.lock();
						try {
							tx.execute("BEGIN IMMEDIATE");
							insert.setString(1, QueueNode.TYPE);
							insert.setString(2, PAYLOAD);
							insert.setLong(3, now);
							insert.setLong(4, now);
							long id;
							try (ResultSet rows = insert.executeQuery()) {
								rows.next();
								id = rows.getLong(1);
							}
							if (withEvent) {
								event(event, id, now, "ENQUEUED", null, null);
								event.executeUpdate();
							}
							tx.execute("COMMIT");
						}
						finally {
							writeLock.unlock();
						}
					}
				}
				return null;
			};
		}));
	}

	/**
	 * {@code batch} jobs per transaction, jobs and events each as one JDBC batch; jobs
	 * per second.
	 */
	static double batchedInserts(Db db, int batch, int batches) {
		return Timing.jobsPerSecond((long) batch * batches, runThreads(1, (thread) -> {
			Connection opened = db.connect();
			return () -> {
				try (Connection connection = opened;
						Statement tx = connection.createStatement();
						PreparedStatement insert = connection.prepareStatement(INSERT_JOB);
						PreparedStatement event = connection.prepareStatement(INSERT_EVENT)) {
					for (int b = 0; b < batches; b++) {
						long now = System.currentTimeMillis();
						tx.execute("BEGIN IMMEDIATE");
						for (int i = 0; i < batch; i++) {
							insert.setString(1, QueueNode.TYPE);
							insert.setString(2, PAYLOAD);
							insert.setLong(3, now);
							insert.setLong(4, now);
							insert.addBatch();
						}
						insert.executeBatch();
						// One writer in a transaction: AUTOINCREMENT ids of the batch are
						// consecutive.
						long last;
						try (ResultSet rows = tx.executeQuery("SELECT last_insert_rowid()")) {
							rows.next();
							last = rows.getLong(1);
						}
						for (long id = last - batch + 1; id <= last; id++) {
							event(event, id, now, "ENQUEUED", null, null);
							event.addBatch();
						}
						event.executeBatch();
						tx.execute("COMMIT");
					}
				}
				return null;
			};
		}));
	}

	/**
	 * Burns down the pending jobs already in the table: each of {@code threads} threads
	 * claims up to {@code batch} jobs in one transaction and records their success in a
	 * second one; jobs per second.
	 */
	static double lifecycle(Db db, int threads, int batch) {
		long pending = db.pendingOrRunning();
		ReentrantLock writeLock = new ReentrantLock();
		return Timing.jobsPerSecond(pending, runThreads(threads, (thread) -> {
			String worker = "raw-" + thread;
			Connection opened = db.connect();
			return () -> {
				try (Connection connection = opened;
						Statement tx = connection.createStatement();
						PreparedStatement claim = connection.prepareStatement(CLAIM);
						PreparedStatement attempt = connection.prepareStatement(INSERT_ATTEMPT);
						PreparedStatement event = connection.prepareStatement(INSERT_EVENT);
						PreparedStatement succeed = connection.prepareStatement(MARK_SUCCEEDED);
						PreparedStatement finish = connection.prepareStatement(FINISH_ATTEMPT)) {
					List<long[]> claimed = new ArrayList<>(batch);
					while (true) {
						claimed.clear();
						writeLock.lock();
						try {
							long now = System.currentTimeMillis();
							tx.execute("BEGIN IMMEDIATE");
							claim.setString(1, worker);
							claim.setLong(2, now);
							claim.setLong(3, now);
							claim.setLong(4, now + 60_000);
							claim.setString(5, QueueNode.TYPE);
							claim.setLong(6, now);
							claim.setInt(7, batch);
							try (ResultSet rows = claim.executeQuery()) {
								while (rows.next()) {
									claimed.add(new long[] { rows.getLong(1), rows.getLong(2), rows.getLong(3) });
								}
							}
							for (long[] job : claimed) {
								attempt.setLong(1, job[0]);
								attempt.setLong(2, job[1]);
								attempt.setLong(3, job[2]);
								attempt.setString(4, worker);
								attempt.setLong(5, now);
								attempt.addBatch();
								event(event, job[0], now, "CLAIMED", worker, "attempt " + job[2] + "/3");
								event.addBatch();
							}
							if (!claimed.isEmpty()) {
								attempt.executeBatch();
								event.executeBatch();
							}
							tx.execute("COMMIT");
						}
						finally {
							writeLock.unlock();
						}
						if (claimed.isEmpty()) {
							return null;
						}
						// The no-op handler runs here, outside the transaction.
						writeLock.lock();
						try {
							long now = System.currentTimeMillis();
							tx.execute("BEGIN IMMEDIATE");
							for (long[] job : claimed) {
								succeed.setLong(1, now);
								succeed.setLong(2, job[0]);
								succeed.setLong(3, job[1]);
								succeed.addBatch();
								finish.setLong(1, now);
								finish.setLong(2, job[0]);
								finish.setLong(3, job[1]);
								finish.addBatch();
								event(event, job[0], now, "SUCCEEDED", worker, null);
								event.addBatch();
							}
							succeed.executeBatch();
							finish.executeBatch();
							event.executeBatch();
							tx.execute("COMMIT");
						}
						finally {
							writeLock.unlock();
						}
					}
				}
			};
		}));
	}

	/**
	 * The claim statement once, on an empty queue: what an idle raw poller does per poll.
	 */
	static int pollOnce(Connection connection) throws SQLException {
		long now = System.currentTimeMillis();
		try (Statement tx = connection.createStatement();
				PreparedStatement claim = connection.prepareStatement(CLAIM)) {
			tx.execute("BEGIN IMMEDIATE");
			claim.setString(1, "raw-idle");
			claim.setLong(2, now);
			claim.setLong(3, now);
			claim.setLong(4, now + 60_000);
			claim.setString(5, QueueNode.TYPE);
			claim.setLong(6, now);
			claim.setInt(7, 8);
			int claimed = 0;
			try (ResultSet rows = claim.executeQuery()) {
				while (rows.next()) {
					claimed++;
				}
			}
			tx.execute("COMMIT");
			return claimed;
		}
	}

	private static void event(PreparedStatement event, long jobId, long at, String name, String actor, String detail)
			throws SQLException {
		event.setLong(1, jobId);
		event.setLong(2, at);
		event.setString(3, name);
		event.setString(4, actor);
		event.setString(5, detail);
	}

	static int share(int total, int threads, int thread) {
		return total / threads + ((thread < total % threads) ? 1 : 0);
	}

	/**
	 * Prepares the task of one thread (opening connections and such, not timed) and
	 * returns it.
	 */
	interface Work {

		Callable<Void> forThread(int thread) throws SQLException;

	}

	/**
	 * Prepares one task per thread, then runs them all started together; returns the
	 * elapsed nanoseconds.
	 */
	static long runThreads(int threads, Work work) {
		List<Callable<Void>> tasks = new ArrayList<>();
		try {
			for (int t = 0; t < threads; t++) {
				tasks.add(work.forThread(t));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		return Timing.timeParallel(tasks);
	}

}
