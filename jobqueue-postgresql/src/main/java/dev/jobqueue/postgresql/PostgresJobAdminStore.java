package dev.jobqueue.postgresql;

import dev.jobqueue.jdbc.JdbcJobAdminStore;

/**
 * The {@link JdbcJobAdminStore} on PostgreSQL: a cancel of a running job (wherever it
 * runs) and a retry send a notification in their transaction, so the worker concerned
 * reacts on commit rather than at its next lease renewal or poll.
 */
public final class PostgresJobAdminStore extends JdbcJobAdminStore {

	/**
	 * @param jobs the job store on the same database, whose links and notifications this
	 * store uses too
	 */
	public PostgresJobAdminStore(PostgresJobStore jobs) {
		super(jobs.database(), jobs.tables(), jobs.links()::settle, new PostgresChangeNotifier(jobs));
	}

}
