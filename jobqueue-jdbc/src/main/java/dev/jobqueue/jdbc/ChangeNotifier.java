package dev.jobqueue.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;

/**
 * Tells other processes on the database, from inside the writing transaction, what they
 * should hear of at once rather than at their next poll: jobs that became due, cancels of
 * running jobs. A database that delivers messages on commit (PostgreSQL's {@code NOTIFY})
 * sends them; on others ({@link #NONE}) processes notice by polling or by watching the
 * database (SQLite's write-ahead log).
 */
public interface ChangeNotifier {

	/** Jobs became due (enqueued, retried, resumed, released). */
	void jobsDue(Connection connection) throws SQLException;

	/** A cancel of these running jobs was requested. */
	void cancelRequested(Connection connection, Collection<Long> jobIds) throws SQLException;

	/** Tells nobody: other processes poll. */
	ChangeNotifier NONE = new ChangeNotifier() {

		@Override
		public void jobsDue(Connection connection) {
		}

		@Override
		public void cancelRequested(Connection connection, Collection<Long> jobIds) {
		}

	};

}
