package dev.jobqueue.mysql;

import dev.jobqueue.core.store.QueueSignals;
import dev.jobqueue.jdbc.ChangeNotifier;
import dev.jobqueue.jdbc.JdbcJobAdminStore;
import dev.jobqueue.jdbc.JdbcScheduleStore;
import dev.jobqueue.jdbc.JdbcStorage;
import dev.jobqueue.jdbc.Tables;

/**
 * The queue on one MySQL or MariaDB database: its job, admin, schedule and retention
 * stores and insights share the database. Other processes learn of enqueues and cancels
 * at their next poll or lease renewal: nothing is sent ({@link ChangeNotifier#NONE}).
 */
public final class MysqlStorage extends
		JdbcStorage<MysqlJobStore, JdbcJobAdminStore, JdbcScheduleStore, MysqlRetentionStore, MysqlQueueInsights> {

	public MysqlStorage(MysqlDatabase database, Tables tables) {
		super(new MysqlJobStore(database, tables),
				(jobs) -> new JdbcJobAdminStore(database, tables, jobs.links()::settle, ChangeNotifier.NONE),
				(jobs) -> new JdbcScheduleStore(database, tables, jobs::insertJobs),
				new MysqlRetentionStore(database, tables), new MysqlQueueInsights(database, tables),
				new MysqlSchema(database.dataSource(), tables, database.location()));
	}

	@Override
	public MysqlDatabase database() {
		return jobs().database();
	}

	/** Where jobs that turned pending in this process are told, so its worker wakes. */
	public MysqlStorage signals(QueueSignals signals) {
		jobs().signals(signals);
		return this;
	}

}
