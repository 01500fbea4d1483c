package dev.jobqueue.jdbc;

import java.sql.SQLException;
import java.util.function.Consumer;

import javax.sql.DataSource;

/**
 * The application's own transactions, as far as the queue takes part in them: a write on
 * the DataSource a caller's transaction is bound to joins that transaction (so a job
 * enqueued in it runs only if it commits), and a write made while a transaction on
 * another database is active can wait for its outcome. The Spring implementation lives
 * outside the engine (module {@code jobqueue-jdbc-spring}); {@link #NONE} knows no caller
 * transactions, as in a program without a transaction manager.
 */
public interface CallerTransactions {

	/** How a caller's transaction ended. */
	enum Outcome {

		COMMITTED, ROLLED_BACK, UNKNOWN

	}

	/**
	 * Whether the calling thread is in a transaction bound to {@code dataSource}, which
	 * queue writes then join.
	 */
	boolean joins(DataSource dataSource);

	/**
	 * Runs {@code work} on the connection of the caller's transaction on
	 * {@code dataSource}; call only when {@link #joins} says there is one.
	 */
	<T> T runJoined(DataSource dataSource, SqlWork<T> work) throws SQLException;

	/**
	 * Whether the calling thread is in a transaction that {@code dataSource} cannot join
	 * (one on another database) and that accepts callbacks on its completion.
	 */
	boolean inOtherTransaction(DataSource dataSource);

	/**
	 * Runs {@code action} once the caller's transaction commits; at once when there is no
	 * such transaction.
	 */
	void afterCommit(Runnable action);

	/** Hands the outcome of the caller's transaction to {@code action} when it ends. */
	void afterCompletion(Consumer<Outcome> action);

	/**
	 * The exception for a lock conflict met inside the caller's transaction, which the
	 * queue cannot retry (the transaction is the caller's): one the caller's retry
	 * support recognises as transient.
	 * @param staleSnapshot whether the transaction read a state that another has changed
	 * since (waiting does not help: only running it again does)
	 */
	RuntimeException lockConflict(String message, SQLException cause, boolean staleSnapshot);

	/** No caller transactions: every write is the queue's own. */
	CallerTransactions NONE = new CallerTransactions() {

		@Override
		public boolean joins(DataSource dataSource) {
			return false;
		}

		@Override
		public <T> T runJoined(DataSource dataSource, SqlWork<T> work) {
			throw new IllegalStateException("No caller transaction to join");
		}

		@Override
		public boolean inOtherTransaction(DataSource dataSource) {
			return false;
		}

		@Override
		public void afterCommit(Runnable action) {
			action.run();
		}

		@Override
		public void afterCompletion(Consumer<Outcome> action) {
			action.accept(Outcome.COMMITTED);
		}

		@Override
		public RuntimeException lockConflict(String message, SQLException cause, boolean staleSnapshot) {
			return new dev.jobqueue.JobQueueException(message, cause);
		}

	};

}
