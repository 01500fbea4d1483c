package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import javax.sql.DataSource;

import dev.jobqueue.JobQueueException;

/**
 * Runs the queue's transactions against one database. What every database shares is here:
 * a write in its own transaction, tried again while the database reports a conflict that
 * running it again cures (each retry counted); a write that joins the caller's
 * transaction when there is one (see {@link CallerTransactions}); reads on a connection
 * of their own; every {@link SQLException} turned into an error that says what to do. A
 * store says how a transaction begins and ends on its database, which failures are worth
 * another try, and what they mean.
 */
public abstract class JdbcDatabase {

	private final DataSource dataSource;

	private final String location;

	private final CallerTransactions callerTransactions;

	private final LongAdder retries = new LongAdder();

	/**
	 * @param location where the database is, for messages: a file or a URL without
	 * credentials
	 */
	protected JdbcDatabase(DataSource dataSource, String location, CallerTransactions callerTransactions) {
		this.dataSource = Objects.requireNonNull(dataSource, "'dataSource' must not be null");
		this.location = Objects.requireNonNull(location, "'location' must not be null");
		this.callerTransactions = Objects.requireNonNull(callerTransactions, "'callerTransactions' must not be null");
	}

	public final DataSource dataSource() {
		return this.dataSource;
	}

	/** Where the database is, for messages. */
	public final String location() {
		return this.location;
	}

	public final CallerTransactions callerTransactions() {
		return this.callerTransactions;
	}

	/** How often a write met a transient conflict and was run again. */
	public final long retries() {
		return this.retries.sum();
	}

	/** Runs {@code work} in its own transaction. */
	public final <T> T write(String action, SqlWork<T> work) {
		return retrying(action, () -> writeOnce(action, work));
	}

	/**
	 * Runs {@code work} in the caller's transaction when one is active on this
	 * DataSource, else in its own transaction.
	 * @param afterCommit run once the work is committed
	 */
	public final <T> T writeJoiningTransaction(String action, SqlWork<T> work, Runnable afterCommit) {
		return writeJoiningTransaction(action, work, (result) -> afterCommit.run(), false);
	}

	/**
	 * As {@link #writeJoiningTransaction(String, SqlWork, Runnable)}, with the committed
	 * result handed to {@code afterCommit}.
	 */
	public final <T> T writeJoiningTransaction(String action, SqlWork<T> work, Consumer<? super T> afterCommit) {
		return writeJoiningTransaction(action, work, afterCommit, false);
	}

	/**
	 * As {@link #writeJoiningTransaction(String, SqlWork, Consumer)}; outside a caller's
	 * transaction, {@code atomicStatement} work (one statement, atomic by itself) may run
	 * without a transaction of its own where the database saves a round trip by that.
	 */
	public final <T> T writeJoiningTransaction(String action, SqlWork<T> work, Consumer<? super T> afterCommit,
			boolean atomicStatement) {
		if (this.callerTransactions.joins(this.dataSource)) {
			T result;
			try {
				result = this.callerTransactions.runJoined(this.dataSource, work);
			}
			catch (SQLException ex) {
				throw translateInCallerTransaction(ex, action);
			}
			this.callerTransactions.afterCommit(() -> {
				committedInCallerTransaction();
				afterCommit.accept(result);
			});
			return result;
		}
		T result = atomicStatement ? retrying(action, () -> writeAtomicStatement(action, work)) : write(action, work);
		afterCommit.accept(result);
		return result;
	}

	/**
	 * Whether the calling thread is in a transaction on this database, which queue writes
	 * then join.
	 */
	public final boolean joinsCallerTransaction() {
		return this.callerTransactions.joins(this.dataSource);
	}

	/**
	 * Whether the calling thread is in a transaction this database cannot join (one on
	 * another database) and that accepts callbacks on its completion.
	 */
	public final boolean inOtherTransaction() {
		return this.callerTransactions.inOtherTransaction(this.dataSource);
	}

	/**
	 * Runs read-only {@code work} on a connection of its own, each statement seeing the
	 * latest commits.
	 */
	public final <T> T read(String action, SqlWork<T> work) {
		try (Connection connection = this.dataSource.getConnection()) {
			beforeRead(connection, action);
			return work.run(connection);
		}
		catch (SQLException ex) {
			throw translate(ex, action);
		}
	}

	/**
	 * Runs read-only {@code work} so that every statement sees the same state, where the
	 * database can do that cheaply; else as {@link #read}.
	 */
	public <T> T readConsistent(String action, SqlWork<T> work) {
		return read(action, work);
	}

	/** One try of a write: a connection, then its transaction. */
	protected <T> T writeOnce(String action, SqlWork<T> work) throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			beforeWrite(connection, action);
			return inTransaction(connection, work);
		}
	}

	/**
	 * One try of a single atomic statement; by default in a transaction like any write.
	 */
	protected <T> T writeAtomicStatement(String action, SqlWork<T> work) throws SQLException {
		return writeOnce(action, work);
	}

	/**
	 * Runs {@code work} in a transaction on {@code connection}, committed or rolled back.
	 */
	protected abstract <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException;

	/**
	 * Whether a write that failed with {@code ex} is worth another try (its transaction
	 * was rolled back).
	 * @param attempt how many tries failed so far, this one included
	 * @param elapsedNanos since the first try began
	 */
	protected abstract boolean isWorthRetrying(SQLException ex, int attempt, long elapsedNanos);

	/** Waits before another try; by default not at all. */
	protected void pauseBeforeRetry(int attempt) {
	}

	/** Checks made on a connection before a write's transaction; nothing by default. */
	protected void beforeWrite(Connection connection, String action) throws SQLException {
	}

	/** Checks made on a connection before a read; nothing by default. */
	protected void beforeRead(Connection connection, String action) throws SQLException {
	}

	/** Called once the caller's transaction that queue work joined has committed. */
	protected void committedInCallerTransaction() {
	}

	/** Turns a failure of {@code action} into an error that says what to do. */
	protected abstract JobQueueException translate(SQLException ex, String action);

	/**
	 * Turns a failure of queue work inside the caller's transaction into an error: by
	 * default as {@link #translate}.
	 */
	protected RuntimeException translateInCallerTransaction(SQLException ex, String action) {
		return translate(ex, action);
	}

	private <T> T retrying(String action, Attempt<T> attempt) {
		long started = System.nanoTime();
		for (int tries = 1;; tries++) {
			try {
				return attempt.run();
			}
			catch (SQLException ex) {
				if (!isWorthRetrying(ex, tries, System.nanoTime() - started)) {
					throw translate(ex, action);
				}
				this.retries.increment();
			}
			pauseBeforeRetry(tries);
		}
	}

	@FunctionalInterface
	private interface Attempt<T> {

		T run() throws SQLException;

	}

}
