package dev.jobqueue.postgresql;

import javax.sql.DataSource;

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
		super(dataSource, location, callerTransactions, PostgresErrors.INSTANCE);
	}

}
