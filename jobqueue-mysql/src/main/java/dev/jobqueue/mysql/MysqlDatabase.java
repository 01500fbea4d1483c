package dev.jobqueue.mysql;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import dev.jobqueue.jdbc.CallerTransactions;
import dev.jobqueue.jdbc.ServerDatabase;
import dev.jobqueue.jdbc.SqlWork;

/**
 * Runs the queue's transactions against one MySQL or MariaDB database, as any
 * {@link ServerDatabase}.
 *
 * <ul>
 * <li>The queue's own transactions run at READ COMMITTED: InnoDB's default, REPEATABLE
 * READ, locks gaps between index entries too, which makes claims and enqueues wait on
 * each other and deadlock more. Work joining the application's transaction runs at the
 * application's level (READ COMMITTED or REPEATABLE READ; the schema check refuses the
 * others); every read that decides a write there locks what it reads, which reads the
 * latest commits at either level.</li>
 * <li>Claims need no lock of their own: {@code FOR UPDATE SKIP LOCKED} lets any number of
 * workers claim at once, each taking rows the others have not locked.</li>
 * <li>A transaction that met a deadlock (error 1213) or a lock wait timeout (1205) is
 * rolled back and run again, a few times; each retry is counted.</li>
 * </ul>
 */
public final class MysqlDatabase extends ServerDatabase {

	/**
	 * @param location where the database is, for messages: a URL without credentials
	 */
	public MysqlDatabase(DataSource dataSource, String location) {
		this(dataSource, location, CallerTransactions.NONE);
	}

	/**
	 * @param callerTransactions the application's transactions, which writes on a shared
	 * DataSource join
	 */
	public MysqlDatabase(DataSource dataSource, String location, CallerTransactions callerTransactions) {
		super(dataSource, location, callerTransactions, MysqlErrors.INSTANCE);
	}

	/**
	 * At READ COMMITTED (the queue's own pool is set so, and sending nothing then), the
	 * level the connection had restored after.
	 */
	@Override
	protected <T> T inTransaction(Connection connection, SqlWork<T> work) throws SQLException {
		int isolation = connection.getTransactionIsolation();
		if (isolation == Connection.TRANSACTION_READ_COMMITTED) {
			return super.inTransaction(connection, work);
		}
		connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
		try {
			return super.inTransaction(connection, work);
		}
		finally {
			connection.setTransactionIsolation(isolation);
		}
	}

}
