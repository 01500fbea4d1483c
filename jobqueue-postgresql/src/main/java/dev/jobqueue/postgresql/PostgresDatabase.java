package dev.jobqueue.postgresql;

import java.sql.SQLException;

import javax.sql.DataSource;

import dev.jobqueue.JobQueueException;
import dev.jobqueue.jdbc.CallerTransactions;
import dev.jobqueue.jdbc.ServerDatabase;

/**
 * Runs the queue's transactions against one PostgreSQL database, at READ COMMITTED (the
 * server's default), as any {@link ServerDatabase}.
 *
 * <ul>
 * <li>Claims need no lock of their own: {@code FOR UPDATE SKIP LOCKED} lets any number of
 * workers claim at once, each taking rows the others have not locked.</li>
 * <li>A transaction the server rolled back because of a deadlock or a serialization
 * failure is run again, a few times; each retry is counted.</li>
 * </ul>
 */
public final class PostgresDatabase extends ServerDatabase {

	private static final int TRANSIENT_ATTEMPTS = 5;

	/**
	 * @param location where the database is, for messages: a URL without credentials
	 */
	public PostgresDatabase(DataSource dataSource, String location) {
		this(dataSource, location, CallerTransactions.NONE);
	}

	/**
	 * @param callerTransactions the application's transactions, which writes on a shared
	 * DataSource join
	 */
	public PostgresDatabase(DataSource dataSource, String location, CallerTransactions callerTransactions) {
		super(dataSource, location, callerTransactions);
	}

	@Override
	protected boolean isWorthRetrying(SQLException ex, int attempt, long elapsedNanos) {
		return PostgresErrors.isTransient(ex) && attempt < TRANSIENT_ATTEMPTS;
	}

	@Override
	protected JobQueueException translate(SQLException ex, String action) {
		return PostgresErrors.translate(ex, action, location());
	}

	static void pause(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new JobQueueException("Interrupted while waiting for the queue database", ex);
		}
	}

}
